//! Recovery hints that name the command to type: the command line as it was
//! typed, with its verb changed, so the workload, the target and the options
//! that name the data are the ones that made it. A bare `fairbench cleanup`
//! drops sysbench's tables, whatever workload the hint was about.

use crate::db::url::mask_url;

/// The words a command line's verb is written as: fairbench's and sysbench's,
/// and YCSB's client's (`load`, `-load`, `-t`).
const VERBS: &[&str] = &["run", "prepare", "cleanup", "prewarm", "check", "load", "-load", "-t"];

/// This process's command line.
pub fn typed() -> Vec<String> {
    std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect()
}

/// The command line `argv` (the program first) with its verb replaced by
/// `verb`, passwords masked, each word quoted for a shell where it needs it.
/// None when it has no verb.
pub fn with_verb(argv: &[String], verb: &str) -> Option<String> {
    let at = argv.iter().skip(1).position(|a| VERBS.contains(&a.as_str()))? + 1;
    let words = argv.iter().enumerate().skip(1).map(|(i, a)| if i == at { verb.to_string() } else { mask_url(a) });
    let words: Vec<String> = std::iter::once("fairbench".to_string()).chain(words).map(|w| quoted(&w)).collect();
    Some(words.join(" "))
}

/// "start over with `fairbench cleanup ...`, then this command again".
pub fn start_over(argv: &[String]) -> String {
    match with_verb(argv, "cleanup") {
        Some(c) => format!("start over with `{c}`, then this command again"),
        None => "start over with `fairbench cleanup` and this command's workload and options, then this command again".into(),
    }
}

/// A word as a POSIX shell reads it back.
fn quoted(w: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !w.is_empty() && w.chars().all(plain) {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn the_verb_is_replaced_wherever_the_form_puts_it() {
        let url = "--target=mysql://sb:secret@127.0.0.1/sb";
        let own = words(&format!("target/debug/fairbench load wl -P some/file {url}"));
        assert_eq!(with_verb(&own, "cleanup").unwrap(), "fairbench cleanup wl -P some/file '--target=mysql://sb:****@127.0.0.1/sb'");
        assert_eq!(with_verb(&words("fairbench wl --tables=2 run"), "cleanup").unwrap(), "fairbench wl --tables=2 cleanup");
        assert_eq!(with_verb(&words("fairbench wl -t -P some/file"), "load").unwrap(), "fairbench wl load -P some/file");
        assert_eq!(with_verb(&words("fairbench wl --tables=2"), "cleanup"), None);
    }

    #[test]
    fn words_a_shell_would_split_are_quoted() {
        let argv = vec!["fairbench".into(), "run".into(), "wl".into(), "-p".into(), "table=it's here".into()];
        assert_eq!(with_verb(&argv, "cleanup").unwrap(), r"fairbench cleanup wl -p 'table=it'\''s here'");
        assert_eq!(quoted(""), "''");
    }
}
