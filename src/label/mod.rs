//! BMK-kit workload labels: the grammar every workload family shares.
//!
//! Dimitri Kravtchuk's BMK-kit names every test with a short label that says
//! exactly what runs, so that a result can never be separated from its test
//! conditions. The kit even ships one shell script per label
//! (`sb11-OLTP_RW_10M_8tab-uniform-ps-trx.sh`). fairbench accepts such a label
//! wherever it accepts a workload name, and prints and stores a canonical
//! label for every run. A label only maps to `(option, value)` pairs; the
//! command line still validates the values against each workload.
//!
//! This module knows no workload. It holds the shape of a label, the tokens
//! every family understands the same way, and the parser that drives a
//! family's own tokens ([`Grammar`], one per family folder, e.g.
//! `src/workload/<family>/label.rs`). A family whose labels follow another
//! shape decodes them whole (`Labels::decode_label`). The registry is handed
//! in through [`Registry`] (implemented by `workload::family`), so this
//! module imports no workload.
//!
//! # Shape of a label
//!
//! ```text
//! [path/][sb11-|sb10-][Prepare(_|-)]SCENARIO[_SIZE...](-TOKEN)*[.sh]
//! ```
//!
//! * Tokens are separated by `-`. In the first segment BMK also uses `_`
//!   (`OLTP_RW_10M_8tab`), so that segment is split on `_` after the scenario.
//!   Tokens such as `p_sel1` contain a `_` of their own.
//! * Keywords are case-insensitive. A leading directory, the `sb11-`/`sb10-`
//!   prefix (the sysbench build the kit runs) and the `.sh` suffix are ignored.
//! * Apart from the scenario, which comes first, tokens may come in any order.
//!   BMK's own scripts are not consistent about the order
//!   (`…-notrx-socket.sh`). Each setting may be named only once: a repeated
//!   or contradictory token is an error that names it.
//! * The scenario is a BMK scenario word a family contributes
//!   (`Labels::label_scenarios`), or a fairbench workload name written in
//!   lowercase (`oltp_update_index-10Kx1tab-uniform-ps-notrx`), so that a
//!   mistyped BMK scenario is an error rather than an unknown workload.
//!   `Prepare` alone (`Prepare_10M_8tab`) prepares the default workload's
//!   dataset.
//!
//! # Tokens every family reads the same way
//!
//! | token | settings |
//! |-------|----------|
//! | `ps`  | `db-ps-mode=auto`. Without `ps`: `db-ps-mode=disable` (a BMK script without `ps` runs without prepared statements); not in a Prepare label |
//! | `socket` | `transport=socket` (without it, the CLI default applies) |
//! | `InnoDB` `MyISAM` `RocksDB` `Aria` `TokuDB` `MEMORY`, `engine=NAME` | `mysql-storage-engine` |
//!
//! Sizes (`10M`, `500K`: [`parse_size`], printed by [`compact`]), the
//! distributions ([`DISTRIBUTIONS`]) and `trx`/`notrx` are helpers here;
//! each family decides whether its labels take them.
//!
//! # Prepare labels
//!
//! A Prepare label (`sb11-Prepare_10M_8tab-InnoDB.sh`) gives command
//! `prepare` and names only the dataset. Tokens that describe a run are
//! rejected there, and the "no `ps` means disable" rule does not apply.
//!
//! # Canonical labels
//!
//! Each family prints its canonical label (`Labels::canonical_label`);
//! `parse(canonical(x))` gives back the options `x` decoded to.

mod tokens;

use std::fmt;
use tokens::is_workload_name;
pub use tokens::*;

/// A decoded label.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// fairbench workload, e.g. "oltp_read_write", "oltp_read_only", "oltp_point_select", "oltp_write_only", "tpcc"
    pub workload: String,
    /// "run" unless the label is a prepare script name (sb11-Prepare_10M_8tab-InnoDB.sh) -> "prepare"
    pub command: String,
    /// option name (as on the command line, without "--", dash form) -> value, in a stable order
    pub options: Vec<(String, String)>,
    /// one line per token: token, then what it means (printed by `fairbench explain LABEL`)
    pub explanation: Vec<(String, String)>,
}

/// A label that cannot be decoded. `token` is the offending token (empty when
/// the label as a whole is at fault). `message` names that token and says
/// what is accepted there.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelError {
    pub label: String,
    pub token: String,
    pub message: String,
}

impl fmt::Display for LabelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The label and its tokens are quoted as typed: a control character in them must not break the line.
        let text = format!("invalid label '{}': {}", self.label, self.message);
        f.write_str(&crate::error::one_line(&text))
    }
}

impl std::error::Error for LabelError {}

/// What a scenario runs, as far as the grammar cares: it decides which
/// tokens a label may carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Selects only: write tokens are refused.
    ReadOnly,
    /// Selects and writes: every query-mix token applies.
    ReadWrite,
    /// Writes only: select tokens are refused.
    WriteOnly,
    /// Sized in warehouses (`1000W`, `10x100W`) with NULL / NoFK tokens.
    Warehouses,
}

/// A BMK scenario word, contributed to the grammar by the workload family
/// that runs it (`Labels::label_scenarios`).
#[derive(Debug)]
pub struct Scenario {
    /// As BMK writes it, e.g. `OLTP_RW` or `OLTP_RW+`.
    pub token: &'static str,
    /// The fairbench workload it runs.
    pub workload: &'static str,
    pub shape: Shape,
    /// What `explain` says of it.
    pub meaning: &'static str,
    /// The scenario also fixes the point selects and drops the range
    /// selects (BMK's `+` variants).
    pub point_selects: Option<u64>,
}

/// What the grammar needs to know of the registered workload families.
pub trait Registry {
    /// Every family's BMK scenario words.
    fn scenarios(&self) -> Vec<&'static Scenario>;
    /// The words a label may start with, for messages (the scenarios, and
    /// the heads of labels a family decodes whole).
    fn words(&self) -> Vec<&'static str>;
    /// Every workload name.
    fn workloads(&self) -> Vec<&'static str>;
    /// The grammar of the family serving a workload, when its labels go
    /// through the shared parser.
    fn grammar(&self, workload: &str) -> Option<&'static dyn Grammar>;
    /// Every family's grammar, for telling which family a token belongs to.
    fn grammars(&self) -> Vec<&'static dyn Grammar>;
    /// The workload a Prepare label without a scenario prepares.
    fn default_workload(&self) -> &'static str;
    /// A label of some family, for messages.
    fn example(&self) -> String;
    /// A label a family decodes whole (a grammar of its own); None: the
    /// shared parser decodes it.
    fn decode_whole(&self, label: &str) -> Option<Result<Decoded, LabelError>>;
}

/// A family's part of the shared grammar: its tokens after the scenario.
pub trait Grammar: Sync {
    /// Whose tokens these are, in messages ("TPC-C").
    fn owner(&self) -> &'static str;

    /// Whether `tok` is one of its tokens by shape alone: `Some(Ok)` when
    /// it is, `Some(Err(message))` when it is written wrongly (the message
    /// names the token), None when it is not one of its tokens.
    fn classify(&self, tok: &str) -> Option<Result<(), String>>;

    /// Applies one of its tokens (`classify` said `Some(Ok)`) through
    /// [`Parser::set`]; returns what the token means, for `explain`.
    fn apply(&self, p: &mut Parser, tok: &str) -> Result<String, LabelError>;

    /// The settings a scenario word implies beyond its workload.
    fn scenario(&self, _p: &mut Parser, _s: &Scenario, _tok: &str) -> Result<(), LabelError> {
        Ok(())
    }

    /// Checks over the whole label, and the settings it implies by
    /// leaving tokens out ([`Parser::imply`]).
    fn finish(&self, _p: &mut Parser) -> Result<(), LabelError> {
        Ok(())
    }

    /// What may follow the scenario, for messages.
    fn accepted(&self, prepare: bool) -> String;

    /// How often one of its options may be named, for conflict messages.
    fn once_hint(&self, _opt: &str) -> Option<String> {
        None
    }

    /// The order its decoded options come out in, so that two spellings
    /// of one test compare equal.
    fn option_order(&self) -> &'static [&'static str];

    /// What a Prepare label without a scenario prepares, when it is this
    /// family's dataset.
    fn bare_prepare(&self) -> &'static str {
        "a Prepare label without a scenario prepares the default workload's dataset"
    }
}

/// Whether `word` is a scenario word of some family (a trailing `+`, as in
/// BMK's `OLTP_RW+`, aside).
fn is_scenario_word(word: &str, reg: &dyn Registry) -> bool {
    let w = word.trim_end_matches('+');
    reg.scenarios().iter().any(|s| s.token.trim_end_matches('+').eq_ignore_ascii_case(w))
}

/// The words a label starts with, for messages.
fn scenario_list(reg: &dyn Registry) -> String {
    format!("{} or Prepare, or a fairbench workload name in lowercase", reg.words().join(", "))
}

/// One label token, classified by its shape alone (the scenario decides
/// later whether it is allowed).
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Prefix,
    Prepare,
    Scenario,
    Ps,
    Socket,
    /// The engine's spelling, and whether `engine=NAME` named it.
    Engine(String, bool),
    /// A token of some family's grammar.
    Family,
    /// Shaped like a token, but written wrongly: the message says why.
    Bad(String),
    /// Not a label token at all.
    Unknown,
}

impl Tok {
    fn well_formed(&self) -> bool {
        !matches!(self, Tok::Bad(_) | Tok::Unknown)
    }
}

fn classify(tok: &str, reg: &dyn Registry) -> Tok {
    let l = tok.to_ascii_lowercase();
    if is_sb_prefix(&l) {
        return Tok::Prefix;
    }
    if l == "prepare" {
        return Tok::Prepare;
    }
    if is_scenario_word(&l, reg) {
        return Tok::Scenario;
    }
    match l.as_str() {
        "ps" => return Tok::Ps,
        "socket" => return Tok::Socket,
        _ => {}
    }
    if let Some(e) = engine_spelling(&l) {
        return Tok::Engine(e.to_string(), false);
    }
    if l.starts_with("engine=") {
        let value = &tok[7..];
        if value.is_empty() || !value.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Tok::Bad(format!("'{tok}': an engine name is letters, digits and '_'"));
        }
        return Tok::Engine(engine_spelling(value).map_or_else(|| value.to_string(), str::to_string), true);
    }
    for g in reg.grammars() {
        match g.classify(tok) {
            Some(Ok(())) => return Tok::Family,
            Some(Err(m)) => return Tok::Bad(m),
            None => {}
        }
    }
    Tok::Unknown
}

/// The first `-` segment of a label, split the way BMK script names are built:
/// `[Prepare_]SCENARIO[_10M_8tab | _1000W]`.
struct Head {
    prepare: Option<String>,
    scenario: Option<String>,
    rest: Vec<String>,
}

/// The number of `_` parts at the start of `parts` that spell a scenario
/// word (the last one may carry extra `+`).
fn scenario_parts(parts: &[&str], reg: &dyn Registry) -> Option<usize> {
    reg.scenarios().iter().find_map(|s| {
        let words: Vec<&str> = s.token.trim_end_matches('+').split('_').collect();
        let n = words.len();
        let fits = parts.len() >= n && words.iter().zip(parts).enumerate().all(|(j, (w, p))| if j + 1 == n { p.trim_end_matches('+').eq_ignore_ascii_case(w) } else { p.eq_ignore_ascii_case(w) });
        fits.then_some(n)
    })
}

fn split_head(seg: &str, reg: &dyn Registry) -> Head {
    let parts: Vec<&str> = seg.split('_').collect();
    let starts_with_digit = |p: &str| p.starts_with(|c: char| c.is_ascii_digit());
    let mut i = 0;
    let mut prepare = None;
    if parts[0].eq_ignore_ascii_case("prepare") {
        prepare = Some(parts[0].to_string());
        i = 1;
    }
    let mut scenario = None;
    if i < parts.len() {
        if let Some(n) = scenario_parts(&parts[i..], reg) {
            scenario = Some(parts[i..i + n].join("_"));
            i += n;
        } else if !starts_with_digit(parts[i]) {
            // A fairbench workload name: everything up to the first size part.
            let start = i;
            while i < parts.len() && !starts_with_digit(parts[i]) {
                i += 1;
            }
            scenario = Some(parts[start..i].join("_"));
        }
    }
    Head { prepare, scenario, rest: parts[i..].iter().map(|s| s.to_string()).collect() }
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Prefix,
    Prepare,
    Scenario,
    Token,
}

fn tokenize(body: &str, reg: &dyn Registry) -> Result<Vec<(String, Role)>, (String, String)> {
    let segs: Vec<&str> = body.split('-').collect();
    if segs.iter().any(|s| s.is_empty()) {
        return Err((String::new(), "'' (an empty token): two '-' in a row, or a '-' at either end; tokens are separated by one '-'".to_string()));
    }
    let mut out = Vec::new();
    let mut k = 0;
    if segs.len() > 1 && is_sb_prefix(&segs[0].to_ascii_lowercase()) {
        out.push((segs[0].to_string(), Role::Prefix));
        k = 1;
    }
    let push_head = |out: &mut Vec<(String, Role)>, h: Head| {
        if let Some(p) = h.prepare {
            out.push((p, Role::Prepare));
        }
        if let Some(s) = h.scenario {
            out.push((s, Role::Scenario));
        }
        out.extend(h.rest.into_iter().map(|t| (t, Role::Token)));
    };
    let head = split_head(segs[k], reg);
    k += 1;
    let bare_prepare = head.prepare.is_some() && head.scenario.is_none() && head.rest.is_empty();
    push_head(&mut out, head);
    // "Prepare-TPCC-1000W", "Prepare-OLTP_RO-10Mx8tab": the scenario may follow
    // a bare Prepare as its own segment.
    if bare_prepare && k < segs.len() && matches!(classify(segs[k], reg), Tok::Scenario | Tok::Unknown) {
        let next = split_head(segs[k], reg);
        if next.prepare.is_none() && next.scenario.is_some() {
            push_head(&mut out, next);
            k += 1;
        }
    }
    out.extend(segs[k..].iter().map(|s| (s.to_string(), Role::Token)));
    Ok(out)
}

/// The decoding state of one label, which a family's [`Grammar`] reads and
/// adds its settings to.
pub struct Parser<'a> {
    label: &'a str,
    reg: &'a dyn Registry,
    grammar: Option<&'static dyn Grammar>,
    workload: Option<String>,
    /// The scenario's shape; None for a workload name without a BMK scenario.
    shape: Option<Shape>,
    /// What the label calls its scenario, for messages.
    scenario: String,
    prepare: bool,
    /// option, value, token that set it
    options: Vec<(&'static str, String, String)>,
    explanation: Vec<(String, String)>,
    /// Tokens a grammar remembers for checks over the whole label.
    memo: Vec<(&'static str, String)>,
}

impl<'a> Parser<'a> {
    pub fn err(&self, token: &str, message: String) -> LabelError {
        LabelError { label: self.label.to_string(), token: token.to_string(), message }
    }

    /// The token a grammar's classifier made of `token` (what `Grammar::apply`
    /// starts from), or the error naming it: written wrongly, or not a token.
    pub fn classified<T>(&self, token: &str, classified: Option<Result<T, String>>) -> Result<T, LabelError> {
        match classified {
            Some(Ok(t)) => Ok(t),
            Some(Err(m)) => Err(self.err(token, m)),
            None => Err(self.err(token, format!("'{token}' is not a label token"))),
        }
    }

    /// Whether the label is a Prepare label (names the dataset only).
    pub fn prepare(&self) -> bool {
        self.prepare
    }

    /// The scenario's shape; None when the label names a workload without
    /// a BMK scenario word.
    pub fn shape(&self) -> Option<Shape> {
        self.shape
    }

    /// The scenario as the label writes it.
    pub fn scenario_name(&self) -> &str {
        &self.scenario
    }

    /// What may follow this label's scenario, for messages.
    pub fn accepted(&self) -> String {
        self.grammar.map(|g| g.accepted(self.prepare)).unwrap_or_default()
    }

    /// Sets an option once; a second token setting it is an error naming both.
    pub fn set(&mut self, opt: &'static str, value: impl Into<String>, token: &str) -> Result<(), LabelError> {
        if let Some((_, _, prev)) = self.options.iter().find(|(o, _, _)| *o == opt) {
            let hint = self.once_hint(opt);
            let message = if prev == token { format!("'{token}' appears twice; a label names {hint}") } else { format!("'{token}' conflicts with '{prev}' (both set {opt}); a label names {hint}") };
            return Err(self.err(token, message));
        }
        self.options.push((opt, value.into(), token.to_string()));
        Ok(())
    }

    fn once_hint(&self, opt: &str) -> String {
        match opt {
            ENGINE => "one storage engine".into(),
            PS_MODE => "ps at most once".into(),
            TRANSPORT => "socket at most once".into(),
            _ => self.grammar.and_then(|g| g.once_hint(opt)).unwrap_or_else(|| "each setting once".into()),
        }
    }

    pub fn is_set(&self, opt: &str) -> bool {
        self.options.iter().any(|(o, _, _)| *o == opt)
    }

    /// A setting the label implies by leaving a token out (`token` names
    /// what is missing, e.g. "(no NULL)"); nothing when a token set it.
    pub fn imply(&mut self, opt: &'static str, value: &str, token: &str, meaning: &str) {
        if !self.is_set(opt) {
            let n = self.options.len();
            self.options.push((opt, value.into(), token.into()));
            self.explain(token, meaning, n, &[]);
        }
    }

    /// Remembers a token under a key, for checks over the whole label.
    pub fn remember(&mut self, key: &'static str, token: &str) {
        self.memo.push((key, token.to_string()));
    }

    /// The token remembered under a key.
    pub fn remembered(&self, key: &str) -> Option<String> {
        self.memo.iter().find(|(k, _)| *k == key).map(|(_, t)| t.clone())
    }

    /// Adds the explanation line for `token`, followed by what it set: the
    /// `extra` items, then every option set since `mark`.
    fn explain(&mut self, token: &str, meaning: &str, mark: usize, extra: &[String]) {
        let mut set: Vec<String> = extra.to_vec();
        set.extend(self.options[mark..].iter().map(|(o, v, _)| format!("{o}={v}")));
        let line = if set.is_empty() { meaning.to_string() } else { format!("{meaning} -> {}", set.join(", ")) };
        self.explanation.push((token.to_string(), line));
    }

    fn token(&mut self, tok: &str, role: Role) -> Result<(), LabelError> {
        match role {
            Role::Prefix => {
                self.explain(tok, "BMK-kit script prefix (the sysbench build the kit runs); ignored", 0, &[]);
                Ok(())
            }
            Role::Prepare => {
                if self.prepare {
                    return Err(self.err(tok, format!("'{tok}' appears twice; a label names Prepare at most once")));
                }
                self.prepare = true;
                let n = self.options.len();
                self.explain(tok, "prepare (create and load) the dataset instead of running", n, &["command prepare".into()]);
                Ok(())
            }
            Role::Scenario => self.scenario(tok),
            Role::Token => self.option(tok),
        }
    }

    fn not_a_scenario(&self, tok: &str) -> LabelError {
        self.err(tok, format!("'{tok}' is not a scenario; a label starts with {}", scenario_list(self.reg)))
    }

    fn scenario(&mut self, tok: &str) -> Result<(), LabelError> {
        let reg = self.reg;
        let found = reg.scenarios().into_iter().find(|s| s.token.eq_ignore_ascii_case(tok));
        let (workload, shape, meaning) = match found {
            Some(s) => (s.workload, Some(s.shape), s.meaning),
            None if tok.ends_with('+') && is_scenario_word(tok, reg) => {
                let mut plus: Vec<&str> = reg.scenarios().iter().filter(|s| s.token.ends_with('+')).map(|s| s.token.trim_end_matches('+')).collect();
                plus.dedup();
                return Err(self.err(tok, format!("'{tok}' is not a scenario: only {} has the + and ++ variants; a label starts with {}", plus.join(", "), scenario_list(reg))));
            }
            None => {
                if !is_workload_name(tok) || classify(tok, reg).well_formed() {
                    return Err(self.not_a_scenario(tok));
                }
                let plain = reg.scenarios().into_iter().find(|s| s.workload == tok && s.point_selects.is_none());
                (tok, plain.map(|s| s.shape), "fairbench workload (no BMK scenario name)")
            }
        };
        let Some(grammar) = reg.grammar(workload) else {
            return Err(self.not_a_scenario(tok));
        };
        self.grammar = Some(grammar);
        self.shape = shape;
        self.workload = Some(workload.to_string());
        self.scenario = tok.to_string();
        let mark = self.options.len();
        if let Some(s) = found {
            grammar.scenario(self, s, tok)?;
        }
        self.explain(tok, &format!("scenario: {meaning}"), mark, &[format!("workload {workload}")]);
        Ok(())
    }

    /// A Prepare label without a scenario prepares the default workload's dataset.
    fn default_prepare_scenario(&mut self) -> Result<(), LabelError> {
        let workload = self.reg.default_workload();
        let Some(grammar) = self.reg.grammar(workload) else {
            return Err(self.err("", format!("the label names no scenario; it starts with {}", scenario_list(self.reg))));
        };
        self.grammar = Some(grammar);
        self.shape = self.reg.scenarios().into_iter().find(|s| s.workload == workload && s.point_selects.is_none()).map(|s| s.shape);
        self.workload = Some(workload.into());
        self.scenario = "Prepare".into();
        let n = self.options.len();
        self.explain("(no scenario)", grammar.bare_prepare(), n, &[format!("workload {workload}")]);
        Ok(())
    }

    fn run_only(&self, tok: &str) -> Result<(), LabelError> {
        if self.prepare {
            return Err(self.err(tok, format!("'{tok}' describes a run, but a Prepare label names only the dataset: {}", self.accepted())));
        }
        Ok(())
    }

    fn option(&mut self, tok: &str) -> Result<(), LabelError> {
        if self.grammar.is_none() {
            if !self.prepare {
                return Err(self.err(tok, format!("'{tok}' cannot start a label; a label starts with {}", scenario_list(self.reg))));
            }
            self.default_prepare_scenario()?;
        }
        let grammar = self.grammar.expect("scenario known");
        let mark = self.options.len();
        let meaning: String = match classify(tok, self.reg) {
            Tok::Unknown => {
                let msg = format!("'{tok}' is not a label token; after {} come {}", self.scenario, self.accepted());
                return Err(self.err(tok, msg));
            }
            Tok::Bad(_) | Tok::Family => match grammar.classify(tok) {
                Some(Ok(())) => grammar.apply(self, tok)?,
                Some(Err(m)) => return Err(self.err(tok, m)),
                None => match classify(tok, self.reg) {
                    Tok::Bad(m) => return Err(self.err(tok, m)),
                    _ => {
                        let owner = self.reg.grammars().into_iter().find(|g| g.classify(tok).is_some()).map_or("another workload", |g| g.owner());
                        let scen = &self.scenario;
                        return Err(self.err(tok, format!("'{tok}' belongs to {owner}, not to {scen}; {scen} takes {}", self.accepted())));
                    }
                },
            },
            Tok::Prefix => return Err(self.err(tok, format!("'{tok}': the sb11-/sb10- script prefix may only open the label"))),
            Tok::Prepare => return Err(self.err(tok, format!("'{tok}': Prepare must open the label (Prepare_10M_8tab)"))),
            Tok::Scenario => {
                return Err(self.err(tok, format!("'{tok}': a label names one scenario, and first; this one is already {}", self.scenario)));
            }
            Tok::Ps => {
                self.run_only(tok)?;
                self.set(PS_MODE, "auto", tok)?;
                "prepared statements".into()
            }
            Tok::Socket => {
                self.set(TRANSPORT, "socket", tok)?;
                "connect through the UNIX socket instead of TCP".into()
            }
            Tok::Engine(e, explicit) => {
                self.set(ENGINE, e, tok)?;
                if explicit { "explicit setting" } else { "storage engine" }.into()
            }
        };
        self.explain(tok, &meaning, mark, &[]);
        Ok(())
    }

    fn finish(mut self) -> Result<Decoded, LabelError> {
        if self.grammar.is_none() {
            if !self.prepare {
                return Err(self.err("", format!("the label names no scenario; it starts with {}", scenario_list(self.reg))));
            }
            self.default_prepare_scenario()?;
        }
        let grammar = self.grammar.expect("scenario known");
        self.imply_no_ps();
        grammar.finish(&mut self)?;
        let order = grammar.option_order();
        let mut options: Vec<(&str, String)> = self.options.into_iter().map(|(o, v, _)| (o, v)).collect();
        options.sort_by_key(|(o, _)| order.iter().position(|x| x == o).unwrap_or(usize::MAX));
        Ok(Decoded {
            workload: self.workload.expect("scenario known"),
            command: if self.prepare { "prepare" } else { "run" }.to_string(),
            options: options.into_iter().map(|(o, v)| (o.to_string(), v)).collect(),
            explanation: self.explanation,
        })
    }

    /// What a BMK name means by leaving `ps` out: no prepared statements.
    fn imply_no_ps(&mut self) {
        if !self.prepare {
            self.imply(PS_MODE, "disable", "(no ps)", "no 'ps' token: BMK runs such a script without prepared statements");
        }
    }
}

/// Decodes a label (canonical form or BMK script name) into a workload,
/// a command and option settings. See the module docs for the grammar.
pub fn parse(label: &str, reg: &dyn Registry) -> Result<Decoded, LabelError> {
    // A family with a grammar of its own claims its labels first.
    if let Some(r) = reg.decode_whole(label) {
        return r;
    }
    let mut p = Parser { label, reg, grammar: None, workload: None, shape: None, scenario: String::new(), prepare: false, options: Vec::new(), explanation: Vec::new(), memo: Vec::new() };
    let body = strip_decorations(label.trim());
    if body.is_empty() {
        return Err(p.err("", format!("the label is empty; expected e.g. {}", reg.example())));
    }
    let tokens = tokenize(body, reg).map_err(|(t, m)| p.err(&t, m))?;
    for (tok, role) in &tokens {
        p.token(tok, *role)?;
    }
    p.finish()
}

/// true if the string looks like a label rather than a workload name (so the CLI can accept both in one position)
///
/// fairbench workload names are lowercase words joined by `_`
/// (`oltp_read_write`, `tpcc`). A label has a script path or `.sh`, an
/// `sb11-` prefix, a `-` followed by a label token, a size in its first
/// segment (`OLTP_RW_10M_8tab`, `TPCC_1000W`), `Prepare`, or a BMK scenario
/// word that is not itself a workload name (`OLTP_RW`, `TPCC`).
pub fn looks_like_label(s: &str, reg: &dyn Registry) -> bool {
    let s = s.trim();
    if s.is_empty() {
        return false;
    }
    if reg.decode_whole(s).is_some() {
        return true;
    }
    let lower = s.to_ascii_lowercase();
    if s.contains(['/', '\\']) || lower.ends_with(".sh") {
        return true;
    }
    let segs: Vec<&str> = s.split('-').collect();
    if segs.len() > 1 {
        if is_sb_prefix(&segs[0].to_ascii_lowercase()) {
            return true;
        }
        if segs[1..].iter().any(|t| !t.is_empty() && classify(t, reg).well_formed()) {
            return true;
        }
    }
    let head = split_head(segs[0], reg);
    if head.prepare.is_some() || !head.rest.is_empty() {
        return true;
    }
    head.scenario.is_some_and(|sc| is_scenario_word(&sc, reg) && !reg.workloads().contains(&sc.as_str()))
}
