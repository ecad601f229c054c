//! Charts as PNG for `report --charts`, rendered from the same SVG the page
//! holds, in Rust (resvg), with the system's fonts.

use crate::error::Error;
use resvg::{tiny_skia, usvg};
use std::sync::Arc;

/// Renders SVGs to PNG; loads the system's fonts once.
pub struct Rasterizer {
    opt: usvg::Options<'static>,
}

impl Default for Rasterizer {
    fn default() -> Self {
        Self::new()
    }
}

impl Rasterizer {
    pub fn new() -> Rasterizer {
        let mut db = usvg::fontdb::Database::new();
        db.load_system_fonts();
        let opt = usvg::Options { fontdb: Arc::new(db), ..usvg::Options::default() };
        Rasterizer { opt }
    }

    /// `svg` at `scale` times its size (2: sharp on high-density screens).
    pub fn png(&self, svg: &str, scale: f32) -> Result<Vec<u8>, String> {
        let tree = usvg::Tree::from_str(svg, &self.opt).map_err(|e| e.to_string())?;
        let size = tree.size().to_int_size().scale_by(scale).ok_or("chart too large")?;
        let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).ok_or("chart has no size")?;
        resvg::render(&tree, tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
        pixmap.encode_png().map_err(|e| e.to_string())
    }
}

/// `report --charts DIR`: each chart of the page as SVG and as PNG (the
/// PNG format in the registry, `view::format`).
pub struct Png;

impl super::Format for Png {
    fn key(&self) -> crate::output::FormatKey {
        crate::output::FormatKey::Png
    }

    fn report(&self, page: &crate::view::html::Report, dir: &std::path::Path) -> Option<crate::error::Result<()>> {
        Some((|| {
            std::fs::create_dir_all(dir).map_err(|e| Error::Io(format!("cannot create {}: {e}", dir.display())))?;
            let raster = Rasterizer::new();
            for c in &page.charts {
                let svg = c.svg();
                super::write(&dir.join(format!("{}.svg", c.id)), svg.as_bytes())?;
                let png = raster.png(&svg, 2.0).map_err(|e| Error::Io(format!("chart {}: {e}", c.id)))?;
                super::write(&dir.join(format!("{}.png", c.id)), &png)?;
            }
            Ok(())
        })())
    }
}
