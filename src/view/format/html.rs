//! The self-contained HTML report (`report`, and a sweep's table as a page);
//! the page itself is built by `view::html`.

/// The HTML format in the registry (`view::format`): the page as built.
pub struct Html;

impl super::Format for Html {
    fn key(&self) -> crate::output::FormatKey {
        crate::output::FormatKey::Html
    }

    fn report(&self, page: &crate::view::html::Report, to: &std::path::Path) -> Option<crate::error::Result<()>> {
        Some(super::write(to, page.html.as_bytes()))
    }

    fn sweep(&self, t: &crate::sweep::table::Table) -> Option<String> {
        Some(crate::view::sweep::html(t, &crate::units::now_rfc3339()))
    }
}
