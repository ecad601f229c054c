//! The documentation holds: README.md stays a short door, every relative
//! link in README.md and docs/**/*.md reaches a file (and a heading, when it
//! names one), and every `fairbench ...` command line in their shell code
//! blocks is accepted by the command-line parser, placeholders such as
//! `mysql://...` replaced by a value of their kind.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The README is the door, not the manual.
const README_MAX_LINES: usize = 250;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every Markdown file under docs/, sorted.
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "md") {
                out.push(path);
            }
        }
    }
    let mut out = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut out);
    out[1..].sort();
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn shown(path: &Path) -> String {
    path.strip_prefix(root()).unwrap_or(path).display().to_string()
}

/// A line of a page with its number and whether it sits in a fenced code
/// block (and the fence's info string, e.g. `sh`).
struct Line<'a> {
    no: usize,
    text: &'a str,
    fence: Option<&'a str>,
}

fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for (i, text) in text.lines().enumerate() {
        if let Some(info) = text.trim_start().strip_prefix("```") {
            fence = if fence.is_some() { None } else { Some(info.trim()) };
            continue;
        }
        out.push(Line { no: i + 1, text, fence });
    }
    out
}

/// GitHub's anchor for a heading: lower case, punctuation dropped (letters,
/// digits, `-`, `_` and spaces kept), spaces as `-`; a repeated slug gets
/// `-1`, `-2` ...
fn slugs(text: &str) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::new();
    for line in lines(text).iter().filter(|l| l.fence.is_none()) {
        let Some(rest) = line.text.strip_prefix('#') else { continue };
        let title = rest.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let slug: String = title.trim().to_lowercase().chars().filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' ')).map(|c| if c == ' ' { '-' } else { c }).collect();
        let n = seen.entry(slug.clone()).or_insert(0);
        out.push(if *n == 0 { slug.clone() } else { format!("{slug}-{n}") });
        *n += 1;
    }
    out
}

/// The text with inline code spans blanked, so that a `[a](b)` quoted as
/// code is not taken for a link.
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
        }
        out.push(if in_code || c == '`' { ' ' } else { c });
    }
    out
}

/// The targets of the inline links and images on a line: `[text](target)`.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code_spans(line);
    let mut out = Vec::new();
    let mut rest = line.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let end = after.find(')').unwrap_or(after.len());
        let target = after[..end].split_whitespace().next().unwrap_or("").trim_matches(|c| c == '<' || c == '>');
        out.push(target.to_string());
        rest = &after[end..];
    }
    out
}

/// What is wrong with each relative link of one page, as `FILE:LINE: ...`.
fn broken_links(page: &Path) -> Vec<String> {
    let text = read(page);
    let mut out = Vec::new();
    for line in lines(&text).iter().filter(|l| l.fence.is_none()) {
        for target in link_targets(line.text) {
            if target.is_empty() {
                out.push(format!("{}:{}: an empty link", shown(page), line.no));
                continue;
            }
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let path = if file.is_empty() { page.to_path_buf() } else { page.parent().unwrap().join(file) };
            if !path.exists() {
                out.push(format!("{}:{}: {target}: no file {}", shown(page), line.no, shown(&path)));
                continue;
            }
            if let Some(anchor) = anchor {
                if path.extension().is_none_or(|x| x != "md") || !slugs(&read(&path)).iter().any(|s| s == anchor) {
                    out.push(format!("{}:{}: {target}: no heading #{anchor} in {}", shown(page), line.no, shown(&path)));
                }
            }
        }
    }
    out
}

/// Splits a shell line into words: quotes removed, `#` comments dropped.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut started = false;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                started = true;
            }
            None if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            None if c == '#' && !started => break,
            None => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

const MYSQL_URL: &str = "mysql://u:p@127.0.0.1:3306/db";
const POSTGRES_URL: &str = "postgres://u:p@127.0.0.1:5432/db";

/// The argument list of one documented command line, its placeholders
/// replaced by values of their kind: `mysql://...` and `URL` by a URL,
/// `--name=...` by a host, `RUN...` by a run id, `a|b` by its first choice,
/// `[--optional]` by what it holds; `[options]` and `...` are dropped.
fn argv_of(command: &str) -> Vec<String> {
    let command = command.replace("mysql://...", MYSQL_URL).replace("postgres://...", POSTGRES_URL).replace("=...", "=127.0.0.1").replace("$(hostname)", "host");
    let mut argv = Vec::new();
    for word in shell_words(&command) {
        let word = word.trim_start_matches('[').trim_end_matches(']');
        let word = if word.contains("://") { word } else { word.split('|').next().unwrap_or(word) };
        let word = match word {
            "options" | "..." => continue,
            "URL" | "$url" => MYSQL_URL,
            "RUN..." | "RUN" | "A" => "1",
            "B" => "2",
            "LABEL" => "OLTP_RW-10Kx8tab-uniform-ps-trx",
            "WORKLOAD" => "oltp_read_write",
            w => w,
        };
        argv.push(word.to_string());
    }
    argv
}

/// Every `fairbench ...` command in a page's shell code blocks (also inside
/// `$(...)` and as `cargo run -- ...`), lines ending in `\` joined, with the
/// line it starts on.
fn commands(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for line in lines(text) {
        let Some(info) = line.fence else { continue };
        if !matches!(info, "" | "sh" | "bash" | "shell" | "console") {
            continue;
        }
        let (no, mut joined) = match pending.take() {
            Some((no, head)) => (no, format!("{head} {}", line.text.trim())),
            None => (line.no, line.text.trim().to_string()),
        };
        if let Some(head) = joined.strip_suffix('\\') {
            pending = Some((no, head.to_string()));
            continue;
        }
        if let Some(at) = joined.find("$(fairbench ") {
            let inner = &joined[at + 2..];
            joined = inner[..inner.find(')').unwrap_or(inner.len())].to_string();
        } else if let Some((_, args)) = joined.strip_prefix("cargo run").and_then(|r| r.split_once(" -- ")) {
            joined = format!("fairbench {args}");
        }
        if joined.starts_with("fairbench ") {
            out.push((no, joined));
        }
    }
    out
}

/// What the parser refuses among one page's command lines, as `FILE:LINE: ...`.
fn refused_commands(page: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for (no, command) in commands(&read(page)) {
        let argv = argv_of(&command);
        // Several --target alternate: each configuration parses on its own, as the binary runs it.
        if let Some(e) = fairbench::cli::configurations(&argv).into_iter().find_map(|a| fairbench::cli::parse(a).err()) {
            let why = e.to_string();
            let why = why.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            out.push(format!("{}:{no}: {command}\n    parsed as {argv:?}\n    {why}", shown(page)));
        }
    }
    out
}

#[test]
fn readme_is_the_short_door() {
    let n = read(&root().join("README.md")).lines().count();
    assert!(n < README_MAX_LINES, "README.md has {n} lines: keep it under {README_MAX_LINES}, and move the details to a page under docs/");
}

#[test]
fn relative_links_resolve() {
    let broken: Vec<String> = pages().iter().flat_map(|p| broken_links(p)).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn documented_commands_parse() {
    let pages = pages();
    let found: usize = pages.iter().map(|p| commands(&read(p)).len()).sum();
    assert!(found >= 20, "only {found} fairbench command lines found in the documentation's code blocks");
    let refused: Vec<String> = pages.iter().flat_map(|p| refused_commands(p)).collect();
    assert!(refused.is_empty(), "documented command lines the parser refuses:\n{}", refused.join("\n"));
}

#[test]
fn the_checks_see_what_they_check() {
    // A link to a missing file and to a missing heading are both found.
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.md");
    std::fs::write(&page, "# A title\n\nSee [here](#a-title), [there](nowhere.md), [up](#no-such) and `[code](x.md)`.\n").unwrap();
    let broken = broken_links(&page);
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert_eq!(slugs("# Exit codes of `server`\n## Results, audit and compare\n## Results, audit and compare\n"), ["exit-codes-of-server", "results-audit-and-compare", "results-audit-and-compare-1"]);
    // Placeholders become values; a misspelt option is refused.
    let cmds = commands("```sh\nurl=$(fairbench server start mariadb)   # prints it\nfairbench run --target mysql://... \\\n    --threads 4\n```\n```toml\nfairbench = 1\n```\n");
    assert_eq!(cmds, [(2, "fairbench server start mariadb".to_string()), (3, "fairbench run --target mysql://...  --threads 4".to_string())]);
    assert_eq!(argv_of(&cmds[1].1), ["fairbench", "run", "--target", MYSQL_URL, "--threads", "4"]);
    assert!(fairbench::cli::parse(argv_of("fairbench run --target mysql://... --threads 4")).is_ok());
    assert!(fairbench::cli::parse(argv_of("fairbench run --target mysql://... --thread 4")).is_err());
}
