//! pgbench script files: SQL commands ending in `;` (several joined by `\;` into one request),
//! and the meta-commands `\set`, `\sleep`, `\if`/`\elif`/`\else`/`\endif`, `\gset`, `\aset`
//! and `\startpipeline`/`\syncpipeline`/`\endpipeline`.
//! A script compiles to a flat list of commands with jumps, so a client
//! runs it with one index and no recursion.

use super::expr::{self, Expr};
use std::collections::HashMap;

/// Variable names of all scripts, shared by every client: each name has a
/// slot in a client's variable table.
#[derive(Clone, Debug, Default)]
pub struct Names {
    pub list: Vec<String>,
    pub index: HashMap<String, usize>,
}

impl Names {
    pub fn slot(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.list.push(name.to_string());
        self.index.insert(name.to_string(), self.list.len() - 1);
        self.list.len() - 1
    }
}

/// One piece of a SQL command's text.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    Text(String),
    /// `:name`, by slot (the name kept for the simple protocol, which
    /// leaves an undefined variable's text as written).
    Var(usize),
}

#[derive(Clone, Debug)]
pub struct Sql {
    pub parts: Vec<Part>,
    /// The text with `?` for each variable: what the extended and
    /// prepared protocols send.
    pub bound: String,
    /// Variable slots, in the order of the `?`.
    pub params: Vec<usize>,
    /// Whether it returns rows (a read, not a write).
    pub returns_rows: bool,
    /// BEGIN, COMMIT, END, ROLLBACK ...: counted as transaction control.
    pub trx: bool,
    /// `\gset` / `\aset` after it: (prefix, all rows), and the names of
    /// its result columns as the select list gives them.
    pub into: Option<Into>,
    /// Index into the workload's statement set (filled when registered).
    pub stmt: u32,
    /// Statements joined by `\;`, sent as one request: the simple protocol only.
    pub compound: bool,
}

#[derive(Clone, Debug)]
pub struct Into {
    pub aset: bool,
    /// Slot of each result column's variable (prefix + column name).
    pub slots: Vec<usize>,
}

#[derive(Clone, Debug)]
pub enum Cmd {
    Sql(Box<Sql>),
    Set(usize, Expr),
    /// Microseconds: a constant, or a variable times a unit.
    Sleep(SleepArg, u64),
    /// Jump to the index when the condition is false.
    If(Expr, usize),
    Goto(usize),
    Pipeline(Pipe),
}

/// pgbench's pipeline meta-commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pipe {
    Start,
    Sync,
    End,
}

#[derive(Clone, Debug)]
pub enum SleepArg {
    Const(i64),
    Var(usize),
}

#[derive(Clone, Debug)]
pub struct Command {
    pub cmd: Cmd,
    pub line: usize,
    /// The command as pgbench's `-r` lists it: a statement's first line, a meta-command as
    /// written; None for the jumps `\else` compiles to, which pgbench does not list.
    pub shown: Option<String>,
    /// Its number among the script's commands as pgbench numbers them (from 0), which its
    /// error lines give: the jumps of `\elif` and `\else` carry theirs, `\endif` has one.
    pub number: u16,
}

#[derive(Clone, Debug)]
pub struct Script {
    /// The path as given (or `builtin:NAME`), for error lines and records.
    pub path: String,
    pub weight: u32,
    pub commands: Vec<Command>,
    pub sha256: String,
}

/// A script error as one line: `FILE:LINE: message`.
pub fn at(path: &str, line: usize, msg: impl std::fmt::Display) -> String {
    format!("{path}:{line}: {msg}")
}

/// Frames of `\if` blocks while parsing: the jump to patch when the
/// current branch's condition is false, and the jumps to the block's end.
struct IfFrame {
    line: usize,
    pending: Option<usize>,
    to_end: Vec<usize>,
    seen_else: bool,
}

pub fn parse(path: &str, text: &str, weight: u32, names: &mut Names) -> Result<Script, String> {
    let mut p = ScriptParser { path, names, commands: Vec::new(), ifs: Vec::new(), sql: String::new(), sql_line: 0, compound: false, pipeline: None, meta_text: None, count: 0 };
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let lineno = i + 1;
        let trimmed = lines[i].trim_start();
        if let Some(meta) = trimmed.strip_prefix('\\') {
            // A meta-command continues on the next line after a trailing backslash.
            let mut full = meta.to_string();
            while full.ends_with('\\') && i + 1 < lines.len() {
                full.pop();
                i += 1;
                full.push(' ');
                full.push_str(lines[i]);
            }
            p.meta(&full, lineno)?;
        } else {
            p.sql_text(lines[i], lineno)?;
        }
        i += 1;
    }
    p.flush_sql(None)?;
    if let Some(f) = p.ifs.last() {
        return Err(at(path, f.line, "\\if without a matching \\endif"));
    }
    if let Some(line) = p.pipeline {
        return Err(at(path, line, "\\startpipeline without a matching \\endpipeline: the script would end with its pipeline open"));
    }
    if p.commands.is_empty() {
        return Err(at(path, lines.len().max(1), "the script has no commands"));
    }
    let sha256 = sha256_hex(text.as_bytes());
    Ok(Script { path: path.to_string(), weight, commands: p.commands, sha256 })
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(bytes);
    d.iter().map(|b| format!("{b:02x}")).collect()
}

struct ScriptParser<'a> {
    path: &'a str,
    names: &'a mut Names,
    commands: Vec<Command>,
    ifs: Vec<IfFrame>,
    /// SQL text since the last `;`.
    sql: String,
    sql_line: usize,
    /// The SQL text holds a `\;`.
    compound: bool,
    /// The line of the `\startpipeline` whose pipeline is open.
    pipeline: Option<usize>,
    /// The meta-command being parsed, as pgbench's `-r` shows it.
    meta_text: Option<String>,
    /// pgbench's commands so far: the next one's number.
    count: u16,
}

impl ScriptParser<'_> {
    fn err(&self, line: usize, msg: impl std::fmt::Display) -> String {
        at(self.path, line, msg)
    }

    /// SQL text of one line: split at `;` outside quotes, comments cut.
    fn sql_text(&mut self, line: &str, lineno: usize) -> Result<(), String> {
        let b = line.as_bytes();
        let mut i = 0;
        let mut quote: Option<u8> = self.open_quote();
        let mut start = 0;
        while i < b.len() {
            let c = b[i];
            match quote {
                Some(q) => {
                    if c == q {
                        quote = None;
                    }
                }
                None => match c {
                    b'\'' | b'"' => quote = Some(c),
                    b'-' if b.get(i + 1) == Some(&b'-') => {
                        self.push_sql(&line[start..i], lineno);
                        return Ok(());
                    }
                    b'\\' if b.get(i + 1) == Some(&b';') => {
                        // `\;` ends a statement but not the command: they go out together.
                        self.push_sql(&line[start..i], lineno);
                        self.sql.push(';');
                        self.compound = true;
                        i += 2;
                        start = i;
                        continue;
                    }
                    b'\\' => {
                        // A meta-command may follow SQL on its line (`... \gset`).
                        self.push_sql(&line[start..i], lineno);
                        return self.meta(&line[i + 1..], lineno);
                    }
                    b';' => {
                        self.push_sql(&line[start..i], lineno);
                        self.flush_sql(None)?;
                        start = i + 1;
                    }
                    _ => {}
                },
            }
            i += 1;
        }
        self.push_sql(&line[start..], lineno);
        self.sql.push('\n');
        Ok(())
    }

    /// The quote a multi-line SQL text is still inside, if any.
    fn open_quote(&self) -> Option<u8> {
        let mut q: Option<u8> = None;
        for c in self.sql.bytes() {
            match q {
                Some(x) if c == x => q = None,
                None if c == b'\'' || c == b'"' => q = Some(c),
                _ => {}
            }
        }
        q
    }

    fn push_sql(&mut self, s: &str, lineno: usize) {
        if self.sql.trim().is_empty() && !s.trim().is_empty() {
            self.sql.clear();
            self.sql_line = lineno;
        }
        self.sql.push_str(s);
    }

    /// Ends the SQL command collected so far (at `;`, or at `\gset`).
    fn flush_sql(&mut self, into: Option<(bool, String, usize)>) -> Result<(), String> {
        let into_given = into.is_some();
        let text = std::mem::take(&mut self.sql);
        let text = text.trim();
        if text.is_empty() {
            if let Some((aset, _, line)) = into {
                return Err(self.err(line, format!("\\{} must follow an SQL command", if aset { "aset" } else { "gset" })));
            }
            return Ok(());
        }
        let mut sql = self.compile_sql(text);
        sql.compound = std::mem::take(&mut self.compound);
        if let Some((aset, prefix, line)) = into {
            let name = if aset { "aset" } else { "gset" };
            if self.pipeline.is_some() {
                return Err(self.err(line, format!("\\{name} inside a pipeline is not supported here: read the value outside \\startpipeline ... \\endpipeline")));
            }
            if sql.compound {
                return Err(self.err(line, format!("\\{name} after a \\; compound command is not supported here: give the query its own ;")));
            }
            let cols = select_names(text).ok_or_else(|| self.err(line, "cannot tell the names of this query's result columns: give each an alias (AS name)"))?;
            sql.into = Some(Into { aset, slots: cols.iter().map(|c| self.names.slot(&format!("{prefix}{c}"))).collect() });
        }
        let shown = Some(shown_sql(text, into_given));
        self.commands.push(Command { cmd: Cmd::Sql(Box::new(sql)), line: self.sql_line, shown, number: self.count });
        self.count = self.count.saturating_add(1);
        Ok(())
    }

    fn compile_sql(&mut self, text: &str) -> Sql {
        let mut parts = Vec::new();
        let mut bound = String::with_capacity(text.len());
        let mut params = Vec::new();
        let mut lit = String::new();
        let b = text.as_bytes();
        let mut i = 0;
        let first = |c: u8| c.is_ascii_alphabetic() || c == b'_' || c >= 0x80;
        let rest = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
        while i < b.len() {
            if b[i] == b':' {
                if b.get(i + 1).copied().is_some_and(first) {
                    let st = i + 1;
                    let mut j = st + 1;
                    while j < b.len() && rest(b[j]) {
                        j += 1;
                    }
                    let slot = self.names.slot(&text[st..j]);
                    if !lit.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut lit)));
                    }
                    parts.push(Part::Var(slot));
                    bound.push('?');
                    params.push(slot);
                    i = j;
                    continue;
                }
                // `::type` and other colons stay as they are.
                while i < b.len() && b[i] == b':' {
                    lit.push(':');
                    bound.push(':');
                    i += 1;
                }
                continue;
            }
            let ch = text[i..].chars().next().unwrap_or(' ');
            lit.push(ch);
            bound.push(ch);
            i += ch.len_utf8();
        }
        if !lit.is_empty() {
            parts.push(Part::Text(lit));
        }
        let word = first_word(text);
        let returns_rows = matches!(word.as_str(), "select" | "with" | "values" | "show" | "table" | "explain") || text.to_ascii_lowercase().contains("returning");
        let trx = matches!(word.as_str(), "begin" | "commit" | "end" | "rollback" | "start" | "abort");
        Sql { parts, bound, params, returns_rows, trx, into: None, stmt: 0, compound: false }
    }

    fn meta(&mut self, full: &str, line: usize) -> Result<(), String> {
        self.meta_text = Some(shown_meta(full));
        let full = full.trim_end();
        let (name, args) = match full.find(char::is_whitespace) {
            Some(k) => (&full[..k], full[k..].trim()),
            None => (full, ""),
        };
        let lname = name.to_ascii_lowercase();
        if !matches!(lname.as_str(), "gset" | "aset") {
            // Any other meta-command ends the SQL command before it, and is a command of its own.
            self.flush_sql(None)?;
            self.count = self.count.saturating_add(1);
        }
        match lname.as_str() {
            "set" => {
                let (var, e) = match args.find(char::is_whitespace) {
                    Some(k) => (&args[..k], args[k..].trim()),
                    None => return Err(self.err(line, "\\set needs a variable name and an expression")),
                };
                if !valid_name(var) {
                    return Err(self.err(line, format!("\\set: invalid variable name: \"{var}\"")));
                }
                let names = &mut *self.names;
                let expr = expr::parse(e, &mut |n| names.slot(n)).map_err(|m| at(self.path, line, format!("\\set: {m}")))?;
                let slot = self.names.slot(var);
                self.push(Cmd::Set(slot, expr), line);
            }
            "sleep" => {
                let mut it = args.split_whitespace();
                let Some(amount) = it.next() else { return Err(self.err(line, "\\sleep needs a duration")) };
                let unit = match it.next().map(str::to_ascii_lowercase).as_deref() {
                    None | Some("s") => 1_000_000,
                    Some("ms") => 1_000,
                    Some("us") => 1,
                    Some(u) => return Err(self.err(line, format!("\\sleep: unknown time unit \"{u}\": use us, ms or s"))),
                };
                if let Some(extra) = it.next() {
                    return Err(self.err(line, format!("\\sleep: unexpected argument \"{extra}\"")));
                }
                let arg = if let Some(v) = amount.strip_prefix(':') {
                    SleepArg::Var(self.names.slot(v))
                } else {
                    SleepArg::Const(amount.parse::<i64>().map_err(|_| self.err(line, format!("\\sleep: invalid duration \"{amount}\""))).map(|n| n.saturating_mul(unit as i64))?)
                };
                self.push(Cmd::Sleep(arg, unit), line);
            }
            "if" => {
                let cond = self.cond(args, line, "if")?;
                let at_cmd = self.push(Cmd::If(cond, 0), line);
                self.ifs.push(IfFrame { line, pending: Some(at_cmd), to_end: Vec::new(), seen_else: false });
            }
            "elif" => {
                let cond = self.cond(args, line, "elif")?;
                self.branch_end(line, "elif")?;
                let at_cmd = self.push(Cmd::If(cond, 0), line);
                self.ifs.last_mut().expect("checked by branch_end").pending = Some(at_cmd);
            }
            "else" => {
                if !args.is_empty() {
                    return Err(self.err(line, "\\else takes no argument"));
                }
                self.branch_end(line, "else")?;
                self.ifs.last_mut().expect("checked by branch_end").seen_else = true;
                // Its jump to the end is what pgbench's -r lists as `\else`.
                let k = self.commands.len() - 1;
                self.commands[k].shown = self.meta_text.clone();
            }
            "endif" => {
                let Some(f) = self.ifs.pop() else { return Err(self.err(line, "\\endif without a matching \\if")) };
                // A command of its own, which goes on to the next, as pgbench's -r lists it.
                let end = self.push(Cmd::Goto(self.commands.len() + 1), line);
                self.commands[end].shown = self.meta_text.clone();
                if let Some(k) = f.pending {
                    self.patch(k, end);
                }
                for k in f.to_end {
                    self.patch(k, end);
                }
            }
            "gset" | "aset" => {
                let prefix = args.to_string();
                if !prefix.is_empty() && !valid_name(&prefix) {
                    return Err(self.err(line, format!("\\{lname}: invalid variable prefix \"{prefix}\"")));
                }
                self.flush_sql(Some((lname == "aset", prefix, line)))?;
            }
            "setshell" | "shell" => return Err(self.err(line, format!("\\{lname} is not supported: fairbench does not run shell commands from scripts"))),
            "startpipeline" => {
                if let Some(open) = self.pipeline {
                    return Err(self.err(line, format!("\\startpipeline: already in pipeline mode (since line {open})")));
                }
                self.pipeline = Some(line);
                self.push(Cmd::Pipeline(Pipe::Start), line);
            }
            "syncpipeline" | "endpipeline" => {
                if self.pipeline.is_none() {
                    return Err(self.err(line, format!("\\{lname}: not in pipeline mode (no \\startpipeline before it)")));
                }
                if lname == "endpipeline" {
                    self.pipeline = None;
                }
                self.push(Cmd::Pipeline(if lname == "endpipeline" { Pipe::End } else { Pipe::Sync }), line);
            }
            _ => return Err(self.err(line, format!("invalid command \\{name}"))),
        }
        Ok(())
    }

    fn cond(&mut self, args: &str, line: usize, what: &str) -> Result<Expr, String> {
        let names = &mut *self.names;
        expr::parse(args, &mut |n| names.slot(n)).map_err(|m| at(self.path, line, format!("\\{what}: {m}")))
    }

    /// Closes the current branch of an `\if` block: a jump to the end, and
    /// the false jump of its condition lands here.
    fn branch_end(&mut self, line: usize, what: &str) -> Result<(), String> {
        match self.ifs.last() {
            None => return Err(self.err(line, format!("\\{what} without a matching \\if"))),
            Some(f) if f.seen_else => return Err(self.err(line, format!("\\{what} after \\else"))),
            _ => {}
        }
        let goto = self.push(Cmd::Goto(0), line);
        let here = self.commands.len();
        let f = self.ifs.last_mut().expect("checked above");
        f.to_end.push(goto);
        if let Some(k) = f.pending.take() {
            self.patch(k, here);
        }
        Ok(())
    }

    fn patch(&mut self, k: usize, to: usize) {
        match &mut self.commands[k].cmd {
            Cmd::If(_, t) | Cmd::Goto(t) => *t = to,
            _ => {}
        }
    }

    fn push(&mut self, cmd: Cmd, line: usize) -> usize {
        // The meta-command as written, until `meta` is done with it; the jumps list as nothing.
        let shown = if matches!(cmd, Cmd::Goto(_)) { None } else { self.meta_text.clone() };
        self.commands.push(Command { cmd, line, shown, number: self.count - 1 });
        self.commands.len() - 1
    }
}

/// pgbench's first line of a statement (at most 127 bytes), with the `;` that ended it when the
/// statement holds one line and no `\gset` ended it.
fn shown_sql(text: &str, into: bool) -> String {
    let mut first = text.lines().next().unwrap_or_default().to_string();
    if !into && !text.contains('\n') {
        first.push(';');
    }
    cut(first, 127)
}

/// A meta-command as pgbench's `-r` shows it: the backslash and the rest of its line.
fn shown_meta(full: &str) -> String {
    cut(format!("\\{}", full.trim_end()), 127)
}

fn cut(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut at = max;
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        s.truncate(at);
    }
    s
}

fn valid_name(s: &str) -> bool {
    let mut b = s.bytes();
    matches!(b.next(), Some(c) if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80) && b.all(|c| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80)
}

fn first_word(sql: &str) -> String {
    let t = sql.trim_start_matches(|c: char| c.is_whitespace() || c == '(');
    t.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').next().unwrap_or("").to_ascii_lowercase()
}

/// The result column names of a SELECT, as PostgreSQL names them: the
/// alias, else the column (without its table), else the function's name.
/// None when the list cannot be read (`*`, or no SELECT).
pub fn select_names(sql: &str) -> Option<Vec<String>> {
    let lower = sql.to_ascii_lowercase();
    let start = find_word(&lower, "select", 0)? + 6;
    // The select list ends at a top-level FROM (or the end of the text).
    let mut depth = 0i32;
    let b = lower.as_bytes();
    let mut end = b.len();
    let mut items = Vec::new();
    let mut item_start = start;
    let mut i = start;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match c {
            b'\'' | b'"' => quote = Some(c),
            b'(' => depth += 1,
            b')' => depth -= 1,
            b',' if depth == 0 => {
                items.push(&sql[item_start..i]);
                item_start = i + 1;
            }
            _ if depth == 0 && is_word_at(&lower, i, "from") => {
                end = i;
                break;
            }
            _ => {}
        }
        i += 1;
    }
    items.push(&sql[item_start..end]);
    items.iter().map(|it| column_name(it.trim())).collect()
}

fn is_word_at(s: &str, i: usize, w: &str) -> bool {
    let b = s.as_bytes();
    s[i..].starts_with(w) && (i == 0 || !is_ident(b[i - 1])) && b.get(i + w.len()).is_none_or(|c| !is_ident(*c))
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

fn find_word(s: &str, w: &str, from: usize) -> Option<usize> {
    (from..s.len()).find(|&i| is_word_at(s, i, w))
}

fn column_name(item: &str) -> Option<String> {
    if item.is_empty() || item.ends_with('*') {
        return None;
    }
    let words: Vec<&str> = item.split_whitespace().collect();
    let last = *words.last()?;
    let ident = |s: &str| s.bytes().all(is_ident) && !s.is_empty() && !s.as_bytes()[0].is_ascii_digit();
    if words.len() >= 2 && ident(last) {
        let prev = words[words.len() - 2];
        // `expr AS name` or `expr name` (but not a keyword ending an expression).
        if prev.eq_ignore_ascii_case("as") || !matches!(last.to_ascii_lowercase().as_str(), "end" | "null" | "true" | "false") {
            return Some(last.to_ascii_lowercase());
        }
    }
    if let Some(q) = last.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        return Some(q.to_string());
    }
    // A column reference, maybe qualified: its last part.
    if words.len() == 1 && item.split('.').all(ident) {
        return item.rsplit('.').next().map(str::to_ascii_lowercase);
    }
    // A function call: the function's name; a CASE: "case"; else PostgreSQL's ?column?.
    let head = item.split('(').next().unwrap_or("").trim();
    if item.contains('(') && ident(head.rsplit('.').next().unwrap_or("")) {
        return Some(head.rsplit('.').next().unwrap_or(head).to_ascii_lowercase());
    }
    if words.first().is_some_and(|w| w.eq_ignore_ascii_case("case")) {
        return Some("case".into());
    }
    Some("?column?".into())
}

/// pgbench's built-in scripts, by name.
pub const BUILTINS: &[(&str, &str)] = &[
    (
        "tpcb-like",
        "\\set aid random(1, 100000 * :scale)\n\\set bid random(1, 1 * :scale)\n\\set tid random(1, 10 * :scale)\n\\set delta random(-5000, 5000)\nBEGIN;\n\
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n\
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\nUPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;\n\
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\nEND;\n",
    ),
    (
        "simple-update",
        "\\set aid random(1, 100000 * :scale)\n\\set bid random(1, 1 * :scale)\n\\set tid random(1, 10 * :scale)\n\\set delta random(-5000, 5000)\nBEGIN;\n\
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n\
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\nEND;\n",
    ),
    ("select-only", "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"),
];

/// A built-in by its name or an unambiguous prefix of it (as pgbench takes `-b`).
pub fn builtin(name: &str) -> Result<(&'static str, &'static str), String> {
    if let Some(b) = BUILTINS.iter().find(|(n, _)| *n == name) {
        return Ok(*b);
    }
    let found: Vec<_> = BUILTINS.iter().filter(|(n, _)| n.starts_with(name) && !name.is_empty()).collect();
    match found.as_slice() {
        [one] => Ok(**one),
        [] => Err(format!("no built-in script named \"{name}\": use {}", BUILTINS.iter().map(|b| b.0).collect::<Vec<_>>().join(", "))),
        _ => Err(format!("ambiguous built-in name \"{name}\": use {}", found.iter().map(|b| b.0).collect::<Vec<_>>().join(", "))),
    }
}

/// `NAME@WEIGHT` split (weight 1 when none); the weight as pgbench takes it.
pub fn split_weight(spec: &str) -> Result<(&str, u32), String> {
    match spec.rsplit_once('@') {
        Some((name, w)) if !w.is_empty() && w.bytes().all(|c| c.is_ascii_digit()) => {
            let w: u32 = w.parse().map_err(|_| format!("{spec}: weight {w} is too large (at most {})", i32::MAX))?;
            if w > i32::MAX as u32 {
                return Err(format!("{spec}: weight {w} is too large (at most {})", i32::MAX));
            }
            Ok((name, w))
        }
        Some((_, w)) => Err(format!("{spec}: invalid weight \"{w}\": give a whole number after @")),
        None => Ok((spec, 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<(Script, Names), String> {
        let mut n = Names::default();
        let s = parse("t.sql", text, 1, &mut n)?;
        Ok((s, n))
    }

    #[test]
    fn sql_split_and_variables() {
        let (s, n) = p("-- a comment\nSELECT 1; SELECT ';' AS x, :aid::int\n  FROM t WHERE a = :aid;\n").unwrap();
        assert_eq!(s.commands.len(), 2);
        let Cmd::Sql(q) = &s.commands[1].cmd else { panic!() };
        assert_eq!(s.commands[1].line, 2);
        assert_eq!(q.bound.trim(), "SELECT ';' AS x, ?::int\n  FROM t WHERE a = ?");
        assert_eq!(q.params, vec![n.index["aid"], n.index["aid"]]);
        assert!(q.returns_rows);
    }

    #[test]
    fn if_blocks_compile_to_jumps() {
        let (s, _) = p("\\if :a > 1\nSELECT 1;\n\\elif :a = 1\nSELECT 2;\n\\else\nSELECT 3;\n\\endif\nSELECT 4;\n").unwrap();
        // If(->3) S1 Goto(->7) If(->6) S2 Goto(->7) S3 Goto(->8: \endif) S4
        let kinds: Vec<String> = s
            .commands
            .iter()
            .map(|c| match &c.cmd {
                Cmd::If(_, t) => format!("if{t}"),
                Cmd::Goto(t) => format!("goto{t}"),
                Cmd::Sql(_) => "sql".into(),
                _ => "?".into(),
            })
            .collect();
        assert_eq!(kinds, ["if3", "sql", "goto7", "if6", "sql", "goto7", "sql", "goto8", "sql"]);
        // pgbench's numbers: \if 0, SELECT 1, \elif 2, SELECT 3, \else 4, SELECT 5, \endif 6, SELECT 7.
        let numbers: Vec<u16> = s.commands.iter().map(|c| c.number).collect();
        assert_eq!(numbers, [0, 1, 2, 2, 3, 4, 5, 6, 7]);
        // -r lists each of pgbench's commands once: the jump \elif adds is not listed.
        let shown: Vec<Option<&str>> = s.commands.iter().map(|c| c.shown.as_deref()).collect();
        assert_eq!(shown, [Some("\\if :a > 1"), Some("SELECT 1;"), None, Some("\\elif :a = 1"), Some("SELECT 2;"), Some("\\else"), Some("SELECT 3;"), Some("\\endif"), Some("SELECT 4;")]);
    }

    #[test]
    fn errors_name_file_and_line() {
        assert_eq!(p("SELECT 1;\n\\foo bar\n").unwrap_err(), "t.sql:2: invalid command \\foo");
        assert_eq!(p("\\set x 1 +\n").unwrap_err(), "t.sql:1: \\set: syntax error at end of expression");
        assert_eq!(p("\\endif\n").unwrap_err(), "t.sql:1: \\endif without a matching \\if");
        assert_eq!(p("\\if 1\nSELECT 1;\n").unwrap_err(), "t.sql:1: \\if without a matching \\endif");
        assert_eq!(p("\\if 1\n\\else\n\\else\n\\endif\n").unwrap_err(), "t.sql:3: \\else after \\else");
        assert_eq!(p("SELECT 1;\n\\gset\n").unwrap_err(), "t.sql:2: \\gset must follow an SQL command");
        assert!(p("\\shell ls\n").unwrap_err().starts_with("t.sql:1: \\shell is not supported"));
        assert_eq!(p("\\sleep 1 min\n").unwrap_err(), "t.sql:1: \\sleep: unknown time unit \"min\": use us, ms or s");
        assert_eq!(p("\\set 1x 2\n").unwrap_err(), "t.sql:1: \\set: invalid variable name: \"1x\"");
        assert_eq!(p("\n\n").unwrap_err(), "t.sql:2: the script has no commands");
        assert_eq!(p("SELECT 1\\; SELECT 2 \\gset\n").unwrap_err(), "t.sql:1: \\gset after a \\; compound command is not supported here: give the query its own ;");
        assert_eq!(p("\\syncpipeline\n").unwrap_err(), "t.sql:1: \\syncpipeline: not in pipeline mode (no \\startpipeline before it)");
    }

    #[test]
    fn a_compound_command_is_one_request_and_a_pipeline_brackets_its_statements() {
        let (s, _) = p("SELECT 1\\; SELECT 2;\nSELECT 3;\n").unwrap();
        let sql: Vec<(String, bool)> = s
            .commands
            .iter()
            .map(|c| match &c.cmd {
                Cmd::Sql(q) => (q.bound.clone(), q.compound),
                _ => panic!("{c:?}"),
            })
            .collect();
        assert_eq!(sql, [("SELECT 1; SELECT 2".to_string(), true), ("SELECT 3".to_string(), false)]);
        let (s, _) = p("\\startpipeline\nSELECT 1;\n\\syncpipeline\nSELECT 2;\n\\endpipeline\n").unwrap();
        let pipes: Vec<Option<Pipe>> = s.commands.iter().map(|c| if let Cmd::Pipeline(x) = c.cmd { Some(x) } else { None }).collect();
        assert_eq!(pipes, [Some(Pipe::Start), None, Some(Pipe::Sync), None, Some(Pipe::End)]);
    }

    #[test]
    fn gset_names_and_continuation() {
        let (s, n) = p("SELECT abalance, count(*), a.bid AS b, 1 + 2 FROM x a \\gset p_\n\\set y \\\n  :p_abalance + 1\n").unwrap();
        let Cmd::Sql(q) = &s.commands[0].cmd else { panic!() };
        let into = q.into.as_ref().unwrap();
        let got: Vec<&str> = into.slots.iter().map(|&i| n.list[i].as_str()).collect();
        assert_eq!(got, ["p_abalance", "p_count", "p_b", "p_?column?"]);
        assert!(matches!(s.commands[1].cmd, Cmd::Set(..)));
    }

    #[test]
    fn builtins_parse_and_weights_split() {
        for (name, text) in BUILTINS {
            let mut n = Names::default();
            parse(name, text, 1, &mut n).unwrap();
        }
        assert_eq!(builtin("tpcb").unwrap().0, "tpcb-like");
        assert!(builtin("s").unwrap_err().starts_with("ambiguous"));
        assert_eq!(split_weight("a.sql@5").unwrap(), ("a.sql", 5));
        assert_eq!(split_weight("a.sql").unwrap(), ("a.sql", 1));
        assert!(split_weight("a.sql@x").is_err());
    }
}
