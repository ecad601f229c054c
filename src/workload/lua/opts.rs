//! A script's options: its declarations in `sysbench.cmdline.options`
//! (`name = {description, default[, type[, validator]]}`), the values the
//! command line gives them, and `help`.

use crate::error::{Error, Result};
use mlua::{Function, Lua, Table, Value};

/// sysbench's option types (`sysbench.cmdline.ARG_*`).
pub const ARG_NULL: i64 = 0;
pub const ARG_BOOL: i64 = 1;
pub const ARG_INT: i64 = 2;
pub const ARG_SIZE: i64 = 3;
pub const ARG_DOUBLE: i64 = 4;
pub const ARG_STRING: i64 = 5;
pub const ARG_LIST: i64 = 6;
pub const ARG_FILE: i64 = 7;

#[derive(Clone, Debug, PartialEq)]
pub enum OptVal {
    Bool(bool),
    Int(i64),
    Num(f64),
    Str(String),
    List(Vec<String>),
    /// Declared without a default and not given.
    Unset,
}

impl OptVal {
    /// As `--name=value` would write it.
    pub fn text(&self) -> String {
        match self {
            OptVal::Bool(b) => crate::values::bool_str(*b).to_string(),
            OptVal::Int(i) => i.to_string(),
            OptVal::Num(n) => n.to_string(),
            OptVal::Str(s) => s.clone(),
            OptVal::List(l) => l.join(","),
            OptVal::Unset => String::new(),
        }
    }

    pub fn to_lua(&self, lua: &Lua) -> mlua::Result<Value> {
        Ok(match self {
            OptVal::Bool(b) => Value::Boolean(*b),
            OptVal::Int(i) => Value::Number(*i as f64),
            OptVal::Num(n) => Value::Number(*n),
            OptVal::Str(s) => Value::String(lua.create_string(s)?),
            OptVal::List(l) => Value::Table(lua.create_sequence_from(l.iter().map(String::as_str))?),
            OptVal::Unset => Value::Nil,
        })
    }
}

/// One declared option.
pub struct Decl {
    pub name: String,
    pub desc: String,
    pub ty: i64,
    pub default: OptVal,
    pub validator: Option<Function>,
}

/// The script's declarations, sorted by name.
pub fn declarations(lua: &Lua) -> Result<Vec<Decl>> {
    let cmdline: Table = lua.globals().get::<Table>("sysbench").and_then(|s| s.get("cmdline")).map_err(|e| Error::Usage(e.to_string()))?;
    let Ok(options) = cmdline.get::<Table>("options") else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for pair in options.pairs::<String, Table>() {
        let (name, def) = pair.map_err(|_| Error::Usage("sysbench.cmdline.options: each entry must be name = {description, default[, type[, validator]]}".into()))?;
        let desc: String = def.get::<Option<String>>(1).ok().flatten().unwrap_or_default();
        let default: Value = def.get(2).unwrap_or(Value::Nil);
        let ty = match def.get::<Option<i64>>(3).ok().flatten() {
            Some(t) => t,
            None => match &default {
                Value::Boolean(_) => ARG_BOOL,
                Value::Integer(_) => ARG_INT,
                Value::Number(n) if n.fract() == 0.0 => ARG_INT,
                Value::Number(_) => ARG_DOUBLE,
                Value::Table(_) => ARG_LIST,
                _ => ARG_STRING,
            },
        };
        let default_text = match &default {
            Value::Nil => None,
            Value::Boolean(b) => Some(if *b { "on".to_string() } else { "off".to_string() }),
            Value::Table(t) => Some(t.sequence_values::<String>().filter_map(|v| v.ok()).collect::<Vec<_>>().join(",")),
            v => Some(v.to_string().unwrap_or_default()),
        };
        let default = match default_text {
            None => OptVal::Unset,
            Some(t) => parse_value(&name, ty, &t).map_err(Error::Usage)?,
        };
        let validator = def.get::<Option<Function>>(4).ok().flatten();
        out.push(Decl { name, desc, ty, default, validator });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// A value as an option of type `ty` takes it.
pub fn parse_value(name: &str, ty: i64, v: &str) -> std::result::Result<OptVal, String> {
    let bad = |what: &str| format!("--{name}={v}: {what}");
    Ok(match ty {
        ARG_BOOL => OptVal::Bool(crate::values::parse_bool(v).map_err(|_| bad("use on or off"))?),
        ARG_INT => OptVal::Int(v.trim().parse::<i64>().map_err(|_| bad("use an integer"))?),
        ARG_SIZE => OptVal::Int(parse_size(v).ok_or_else(|| bad("use a size such as 512, 64K, 1M or 2G"))?),
        ARG_DOUBLE => OptVal::Num(v.trim().parse::<f64>().map_err(|_| bad("use a number"))?),
        ARG_LIST => OptVal::List(v.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect()),
        ARG_NULL | ARG_STRING | ARG_FILE => OptVal::Str(v.to_string()),
        _ => return Err(format!("--{name}: the script declares an unknown option type {ty}")),
    })
}

fn parse_size(v: &str) -> Option<i64> {
    let v = v.trim();
    let (num, mult) = match v.chars().last()?.to_ascii_uppercase() {
        'K' => (&v[..v.len() - 1], 1i64 << 10),
        'M' => (&v[..v.len() - 1], 1 << 20),
        'G' => (&v[..v.len() - 1], 1 << 30),
        'T' => (&v[..v.len() - 1], 1 << 40),
        _ => (v, 1),
    };
    num.parse::<i64>().ok()?.checked_mul(mult)
}

/// What the command line gives a script, once its declarations have read it.
#[derive(Debug)]
pub struct Given {
    /// Every declared option's value, then any option a script without
    /// declarations was given.
    pub values: Vec<(String, OptVal)>,
    /// The command.
    pub command: String,
    /// The options as `--name=value` (a bare boolean as `--name`), for the
    /// label and `sysbench.cmdline.argv`: the same whichever way they were
    /// written.
    pub written: Vec<String>,
}

/// The words sysbench takes as a boolean's value (`set_option`), exactly.
fn bool_word(w: &str) -> bool {
    matches!(w, "on" | "true" | "1" | "off" | "false" | "0")
}

/// Reads `given`: `--name=value`, a bare `--name`, and the words the
/// command line could not place (each right after the bare option it may
/// belong to). A declared option that takes a value takes the next word;
/// a boolean takes it only when it is on, off, true, false, 1 or 0; any
/// other word is the command. `command` is the command when the command
/// line found it, or empty when it is one of those words.
///
/// A script that declares no options takes any option, as sysbench 1.0
/// does for scripts written before options were declared, as a string
/// (`--tables=2` reads as "2", a bare `--name` as ""). Such an option
/// takes the next word unless no later word is left for the command.
/// Values are checked by type and by the script's validators.
pub fn resolve(script: &str, decls: &[Decl], given: &[String], command: &str) -> Result<Given> {
    let open = decls.is_empty();
    let mut values: Vec<(String, OptVal)> = decls.iter().map(|d| (d.name.clone(), d.default.clone())).collect();
    let mut written = Vec::new();
    let mut loose: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < given.len() {
        let g = &given[i];
        i += 1;
        let Some(raw) = g.strip_prefix("--") else {
            loose.push(g);
            continue;
        };
        let (spelled, value) = match raw.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (raw, None),
        };
        let name = spelled.replace('-', "_");
        let next = given.get(i).map(String::as_str).filter(|w| !w.starts_with("--"));
        let Some(k) = decls.iter().position(|d| d.name == name) else {
            if !open {
                return Err(Error::Usage(format!("{g}: {script} has no such option (see `fairbench {script} help`)")));
            }
            let leaves_a_command = !command.is_empty() || given[i + 1..].iter().any(|w| !w.starts_with("--"));
            let value = match (value, next) {
                (Some(v), _) => Some(v),
                (None, Some(w)) if leaves_a_command => {
                    i += 1;
                    Some(w)
                }
                (None, _) => None,
            };
            let v = OptVal::Str(value.unwrap_or_default().to_string());
            match values.iter_mut().find(|(n, _)| *n == name) {
                Some(slot) => slot.1 = v,
                None => values.push((name, v)),
            }
            written.push(match value {
                Some(v) => format!("--{spelled}={v}"),
                None => format!("--{spelled}"),
            });
            continue;
        };
        let d = &decls[k];
        let value = match (value, next) {
            (Some(v), _) => Some(v),
            (None, Some(w)) if d.ty != ARG_BOOL || bool_word(w) => {
                i += 1;
                Some(w)
            }
            (None, _) if d.ty == ARG_BOOL => None,
            (None, _) => return Err(Error::Usage(format!("--{spelled}: give it a value (--{spelled}=VALUE or --{spelled} VALUE)"))),
        };
        let v = match value {
            Some(v) => parse_value(&d.name, d.ty, v).map_err(Error::Usage)?,
            None => OptVal::Bool(true),
        };
        if let (Some(f), Some(text)) = (&d.validator, value) {
            let ok: bool = f.call((d.name.as_str(), text)).map_err(|e| Error::Usage(format!("--{}={text}: {}", d.name, super::api::error_line(&e))))?;
            if !ok {
                return Err(Error::Usage(format!("--{}={text}: the script's check rejects this value", d.name)));
            }
        }
        values[k].1 = v;
        written.push(match value {
            Some(v) => format!("--{spelled}={v}"),
            None => format!("--{spelled}"),
        });
    }
    let command = match (command, loose.as_slice()) {
        ("", [one]) => one.to_string(),
        ("", []) => return Err(Error::Usage(format!("{script}: give a command (run, prepare, cleanup, help or one the script defines)"))),
        ("", many) => return Err(Error::Usage(format!("{script}: one command at a time, got {}", many.join(" ")))),
        (c, []) => c.to_string(),
        (c, extra) => return Err(Error::Usage(format!("{script}: one command at a time, got {c} and {}", extra.join(" ")))),
    };
    Ok(Given { values, command, written })
}

/// `help`: the script's options as sysbench lists them.
pub fn help_text(script: &str, decls: &[Decl]) -> String {
    let mut s = format!("{script} options:\n");
    for d in decls {
        let def = match &d.default {
            OptVal::Unset => String::new(),
            v => format!(" [{}]", v.text()),
        };
        let spelled = if d.ty == ARG_BOOL { format!("{}[=on|off]", d.name) } else { format!("{}={}", d.name, type_hint(d.ty)) };
        s.push_str(&format!("  --{spelled:<40}{}{def}\n", d.desc));
    }
    s
}

fn type_hint(ty: i64) -> &'static str {
    match ty {
        ARG_INT => "N",
        ARG_SIZE => "SIZE",
        ARG_DOUBLE => "N",
        ARG_LIST => "[LIST,...]",
        ARG_FILE => "FILENAME",
        _ => "STRING",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(name: &str, ty: i64, default: OptVal) -> Decl {
        Decl { name: name.into(), desc: String::new(), ty, default, validator: None }
    }

    fn declared() -> Vec<Decl> {
        vec![decl("skip_trx", ARG_BOOL, OptVal::Bool(false)), decl("table_size", ARG_INT, OptVal::Int(10000)), decl("tables", ARG_INT, OptVal::Int(1))]
    }

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn value(g: &Given, name: &str) -> OptVal {
        g.values.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()).unwrap_or_else(|| panic!("no {name} in {g:?}"))
    }

    #[test]
    fn a_value_after_a_space_is_the_options() {
        let g = resolve("s.lua", &declared(), &words("--tables 2 --table-size 2000"), "prepare").unwrap();
        assert_eq!((value(&g, "tables"), value(&g, "table_size")), (OptVal::Int(2), OptVal::Int(2000)));
        assert_eq!(g.written, ["--tables=2", "--table-size=2000"]);
        assert_eq!(g.command, "prepare");
        // A negative number is a value: only `--` starts an option.
        assert_eq!(value(&resolve("s.lua", &declared(), &words("--tables -5"), "run").unwrap(), "tables"), OptVal::Int(-5));
        // No value left: an option that takes one says so.
        let e = resolve("s.lua", &declared(), &words("--tables --skip_trx"), "run").unwrap_err().to_string();
        assert!(e.contains("--tables VALUE"), "{e}");
    }

    #[test]
    fn a_boolean_takes_only_a_boolean_word_after_a_space() {
        for (w, want) in [("on", true), ("off", false), ("true", true), ("false", false), ("1", true), ("0", false)] {
            let g = resolve("s.lua", &declared(), &words(&format!("--skip_trx {w} --tables 3")), "run").unwrap();
            assert_eq!(value(&g, "skip_trx"), OptVal::Bool(want), "{w}");
        }
        // The word after a bare boolean is the command when it is no boolean word.
        let g = resolve("s.lua", &declared(), &words("--tables 2 --skip_trx run"), "").unwrap();
        assert_eq!((g.command.as_str(), value(&g, "skip_trx")), ("run", OptVal::Bool(true)));
        assert_eq!(g.written, ["--tables=2", "--skip_trx"]);
        let e = resolve("s.lua", &declared(), &words("--skip_trx run"), "prepare").unwrap_err().to_string();
        assert!(e.contains("one command at a time"), "{e}");
        let e = resolve("s.lua", &declared(), &words("--tables 2"), "").unwrap_err().to_string();
        assert!(e.contains("give a command"), "{e}");
    }

    #[test]
    fn a_script_without_declarations_takes_any_option_as_a_string() {
        let g = resolve("s.lua", &[], &words("--tables=2 --table-size 300 --flag"), "run").unwrap();
        assert_eq!(value(&g, "tables"), OptVal::Str("2".into()));
        assert_eq!(value(&g, "table_size"), OptVal::Str("300".into()));
        assert_eq!(value(&g, "flag"), OptVal::Str(String::new()));
        // The last word is left for the command when none was found.
        let g = resolve("s.lua", &[], &words("--tables 2 --verbose run"), "").unwrap();
        assert_eq!((g.command.as_str(), value(&g, "tables"), value(&g, "verbose")), ("run", OptVal::Str("2".into()), OptVal::Str(String::new())));
        // A script that declares options refuses others.
        let e = resolve("s.lua", &declared(), &words("--bogus=1"), "run").unwrap_err().to_string();
        assert!(e.contains("--bogus=1") && e.contains("no such option"), "{e}");
    }
}
