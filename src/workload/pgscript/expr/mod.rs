//! pgbench's expression language (`\set`, `\if`, `\elif`): integer, double,
//! boolean and null values, its operators with their precedence, CASE, and
//! its functions, with pgbench's typing rules (integer arithmetic unless
//! an operand is double, errors on bigint overflow and division by zero,
//! NULL in gives NULL out, and so on).
//!
//! Here: values, functions and evaluation; `parse.rs` the lexer and parser.

mod parse;

use super::prng::{self, PgRng};
pub use parse::parse;

/// A value of the language. `Str` is a value read from SQL by `\gset`:
/// it becomes a number, boolean or null when an expression uses it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Double(f64),
    Str(String),
}

impl Value {
    fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "int",
            Value::Double(_) => "double",
            Value::Str(_) => "string",
        }
    }

    /// The text a variable stands for in SQL (as pgbench prints it:
    /// doubles with 15 significant digits).
    pub fn write_text(&self, out: &mut String) {
        use std::fmt::Write;
        match self {
            Value::Null => out.push_str("NULL"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Value::Double(d) => out.push_str(&format_g15(*d)),
            Value::Str(s) => out.push_str(s),
        }
    }

    /// A `\gset` string read as pgbench reads a variable: null, a boolean
    /// word (or a prefix of one), an integer, else a double.
    pub fn from_text(s: &str) -> Result<Value, String> {
        let l = s.to_ascii_lowercase();
        if l.is_empty() {
            return Err("empty value".into());
        }
        if l == "null" {
            return Ok(Value::Null);
        }
        if "true".starts_with(&l) || "yes".starts_with(&l) || l == "on" {
            return Ok(Value::Bool(true));
        }
        if "false".starts_with(&l) || "no".starts_with(&l) || l == "off" || l == "of" {
            return Ok(Value::Bool(false));
        }
        let t = s.trim();
        let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return t.parse::<i64>().map(Value::Int).map_err(|_| format!("malformed value \"{s}\": bigint out of range"));
        }
        t.parse::<f64>().map(Value::Double).map_err(|_| format!("malformed value \"{s}\""))
    }

    /// A `Str` turned into its typed value; others as they are.
    fn typed(self) -> Result<Value, String> {
        match self {
            Value::Str(s) => Value::from_text(&s),
            v => Ok(v),
        }
    }

    fn int(&self) -> Result<i64, String> {
        match self {
            Value::Int(i) => Ok(*i),
            Value::Double(d) => {
                let r = d.round_ties_even();
                if r.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&r) {
                    Err(format!("double to int overflow for {r:.6}"))
                } else {
                    Ok(r as i64)
                }
            }
            v => Err(format!("cannot coerce {} to int", v.type_name())),
        }
    }

    fn double(&self) -> Result<f64, String> {
        match self {
            Value::Double(d) => Ok(*d),
            Value::Int(i) => Ok(*i as f64),
            v => Err(format!("cannot coerce {} to double", v.type_name())),
        }
    }

    fn boolean(&self) -> Result<bool, String> {
        match self {
            Value::Bool(b) => Ok(*b),
            v => Err(format!("cannot coerce {} to boolean", v.type_name())),
        }
    }

    /// Truth for `\if` and CASE: zero and NULL are false.
    pub fn truth(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Double(d) => *d != 0.0,
            Value::Str(s) => Value::from_text(s).map(|v| v.truth()).unwrap_or(false),
        }
    }
}

/// `%.15g` as C prints it.
pub fn format_g15(d: f64) -> String {
    if d.is_nan() {
        return "nan".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "inf" } else { "-inf" }.into();
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0" } else { "0" }.into();
    }
    const P: i32 = 15;
    let e = format!("{:.*e}", (P - 1) as usize, d);
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let x: i32 = exp.parse().unwrap_or(0);
    if !(-4..P).contains(&x) {
        let mant = trim_zeros(mant);
        format!("{mant}e{}{:02}", if x < 0 { '-' } else { '+' }, x.abs())
    } else {
        let s = format!("{:.*}", (P - 1 - x).max(0) as usize, d);
        trim_zeros(&s).to_string()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Func {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Abs,
    Least,
    Greatest,
    Debug,
    Pi,
    Sqrt,
    Ln,
    Exp,
    Int,
    Double,
    Random,
    RandomGaussian,
    RandomExponential,
    RandomZipfian,
    Pow,
    And,
    Or,
    Not,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Le,
    Lt,
    Is,
    Case,
    HashMurmur2,
    HashFnv1a,
    Permute,
}

/// Argument counts: exact, or one of these ranges.
enum Arity {
    Exactly(usize),
    AtLeastOne,
    /// One required, one optional seed.
    Hash,
    /// Two required, one optional seed.
    Permute,
}

const FUNCTIONS: &[(&str, Func, Arity)] = &[
    ("abs", Func::Abs, Arity::Exactly(1)),
    ("least", Func::Least, Arity::AtLeastOne),
    ("greatest", Func::Greatest, Arity::AtLeastOne),
    ("debug", Func::Debug, Arity::Exactly(1)),
    ("pi", Func::Pi, Arity::Exactly(0)),
    ("sqrt", Func::Sqrt, Arity::Exactly(1)),
    ("ln", Func::Ln, Arity::Exactly(1)),
    ("exp", Func::Exp, Arity::Exactly(1)),
    ("int", Func::Int, Arity::Exactly(1)),
    ("double", Func::Double, Arity::Exactly(1)),
    ("random", Func::Random, Arity::Exactly(2)),
    ("random_gaussian", Func::RandomGaussian, Arity::Exactly(3)),
    ("random_exponential", Func::RandomExponential, Arity::Exactly(3)),
    ("random_zipfian", Func::RandomZipfian, Arity::Exactly(3)),
    ("pow", Func::Pow, Arity::Exactly(2)),
    ("power", Func::Pow, Arity::Exactly(2)),
    ("mod", Func::Mod, Arity::Exactly(2)),
    ("hash", Func::HashMurmur2, Arity::Hash),
    ("hash_murmur2", Func::HashMurmur2, Arity::Hash),
    ("hash_fnv1a", Func::HashFnv1a, Arity::Hash),
    ("permute", Func::Permute, Arity::Permute),
];

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Const(Value),
    /// A variable, by its slot in the client's variable table.
    Var(usize),
    Call(Func, Vec<Expr>),
}

/// What evaluation needs from the running client.
pub struct Env<'a> {
    pub vars: &'a [Option<Value>],
    pub names: &'a [String],
    pub rng: &'a mut PgRng,
}

impl Expr {
    pub fn eval(&self, env: &mut Env<'_>) -> Result<Value, String> {
        match self {
            Expr::Const(v) => Ok(v.clone()),
            Expr::Var(i) => match env.vars.get(*i).and_then(Option::as_ref) {
                Some(v) => v.clone().typed().map_err(|e| format!("variable \"{}\": {e}", env.names[*i])),
                None => Err(format!("undefined variable \"{}\"", env.names[*i])),
            },
            Expr::Call(f, args) => call(*f, args, env),
        }
    }
}

fn call(f: Func, args: &[Expr], env: &mut Env<'_>) -> Result<Value, String> {
    match f {
        Func::And | Func::Or => {
            let a = args[0].eval(env)?;
            if a == Value::Null {
                return Ok(Value::Null);
            }
            let a = a.boolean()?;
            if (f == Func::And && !a) || (f == Func::Or && a) {
                return Ok(Value::Bool(a));
            }
            let b = args[1].eval(env)?;
            if b == Value::Null {
                return Ok(Value::Null);
            }
            return Ok(Value::Bool(b.boolean()?));
        }
        Func::Case => {
            // WHEN, THEN pairs, then the ELSE value.
            let mut i = 0;
            while i + 1 < args.len() {
                if args[i].eval(env)?.truth() {
                    return args[i + 1].eval(env);
                }
                i += 2;
            }
            return args[args.len() - 1].eval(env);
        }
        _ => {}
    }
    // Up to four arguments on the stack: a \set runs on every event.
    const NONE: Value = Value::Null;
    let mut small = [NONE; 4];
    let mut big = Vec::new();
    let v: &mut [Value] = if args.len() <= small.len() {
        &mut small[..args.len()]
    } else {
        big.resize(args.len(), Value::Null);
        &mut big
    };
    for (slot, a) in v.iter_mut().zip(args) {
        *slot = a.eval(env)?;
    }
    if f != Func::Is && f != Func::Debug && v.contains(&Value::Null) {
        return Ok(Value::Null);
    }
    apply(f, v, env.rng)
}

fn apply(f: Func, v: &[Value], rng: &mut PgRng) -> Result<Value, String> {
    use Value::{Bool, Double, Int};
    let any_double = v.iter().any(|x| matches!(x, Double(_)));
    Ok(match f {
        Func::Add | Func::Sub | Func::Mul | Func::Div | Func::Eq | Func::Ne | Func::Le | Func::Lt if any_double => {
            let (a, b) = (v[0].double()?, v[1].double()?);
            match f {
                Func::Add => Double(a + b),
                Func::Sub => Double(a - b),
                Func::Mul => Double(a * b),
                Func::Div => Double(a / b),
                Func::Eq => Bool(a == b),
                Func::Ne => Bool(a != b),
                Func::Le => Bool(a <= b),
                _ => Bool(a < b),
            }
        }
        Func::Add | Func::Sub | Func::Mul | Func::Div | Func::Mod | Func::Eq | Func::Ne | Func::Le | Func::Lt => {
            let (a, b) = (v[0].int()?, v[1].int()?);
            match f {
                Func::Add => Int(a.checked_add(b).ok_or("bigint add out of range")?),
                Func::Sub => Int(a.checked_sub(b).ok_or("bigint sub out of range")?),
                Func::Mul => Int(a.checked_mul(b).ok_or("bigint mul out of range")?),
                Func::Eq => Bool(a == b),
                Func::Ne => Bool(a != b),
                Func::Le => Bool(a <= b),
                Func::Lt => Bool(a < b),
                _ => {
                    if b == 0 {
                        return Err("division by zero".into());
                    }
                    match (f, b) {
                        (Func::Div, -1) => Int(a.checked_neg().ok_or("bigint div out of range")?),
                        (_, -1) => Int(0),
                        (Func::Div, _) => Int(a / b),
                        _ => Int(a % b),
                    }
                }
            }
        }
        Func::BitAnd | Func::BitOr | Func::BitXor | Func::Shl | Func::Shr => {
            let (a, b) = (v[0].int()?, v[1].int()?);
            match f {
                Func::BitAnd => Int(a & b),
                Func::BitOr => Int(a | b),
                Func::BitXor => Int(a ^ b),
                // C shifts by the count modulo the width on the usual hardware.
                Func::Shl => Int(a.wrapping_shl(b as u32)),
                _ => Int(a.wrapping_shr(b as u32)),
            }
        }
        Func::Not => Bool(!v[0].boolean()?),
        Func::Pi => Double(std::f64::consts::PI),
        Func::Abs => match &v[0] {
            Int(i) => Int(i.wrapping_abs()),
            x => Double(x.double()?.abs()),
        },
        Func::Debug => {
            let shown = match &v[0] {
                Value::Null => "null".to_string(),
                Bool(b) => format!("boolean {b}"),
                Int(i) => format!("int {i}"),
                Double(d) => format!("double {}", format_g15(*d)),
                Value::Str(s) => format!("string {s}"),
            };
            eprintln!("debug: {shown}");
            v[0].clone()
        }
        Func::Double => Double(v[0].double()?),
        Func::Sqrt => Double(v[0].double()?.sqrt()),
        Func::Ln => Double(v[0].double()?.ln()),
        Func::Exp => Double(v[0].double()?.exp()),
        Func::Int => Int(v[0].int()?),
        Func::Least | Func::Greatest => {
            let least = f == Func::Least;
            if any_double {
                let mut m = v[0].double()?;
                for x in &v[1..] {
                    let d = x.double()?;
                    m = if least { m.min(d) } else { m.max(d) };
                }
                Double(m)
            } else {
                let mut m = v[0].int()?;
                for x in &v[1..] {
                    let d = x.int()?;
                    m = if least { m.min(d) } else { m.max(d) };
                }
                Int(m)
            }
        }
        Func::Random | Func::RandomGaussian | Func::RandomExponential | Func::RandomZipfian => {
            let (lo, hi) = (v[0].int()?, v[1].int()?);
            if lo > hi {
                return Err("empty range given to random".into());
            }
            if hi.checked_sub(lo).and_then(|d| d.checked_add(1)).is_none() {
                return Err("random range is too large".into());
            }
            match f {
                Func::Random => Int(rng.range_i64(lo, hi)),
                Func::RandomGaussian => {
                    let p = v[2].double()?;
                    if p < 2.0 {
                        return Err(format!("gaussian parameter must be at least 2.000000 (not {p:.6})"));
                    }
                    Int(rng.gaussian(lo, hi, p))
                }
                Func::RandomZipfian => {
                    let p = v[2].double()?;
                    if !(1.001..=1000.0).contains(&p) {
                        return Err(format!("zipfian parameter must be in range [1.001, 1000] (not {p:.6})"));
                    }
                    Int(rng.zipfian(lo, hi, p))
                }
                _ => {
                    let p = v[2].double()?;
                    if p <= 0.0 {
                        return Err(format!("exponential parameter must be greater than zero (not {p:.6})"));
                    }
                    Int(rng.exponential(lo, hi, p))
                }
            }
        }
        Func::Pow => Double(v[0].double()?.powf(v[1].double()?)),
        Func::Is => Bool(match (&v[0], &v[1]) {
            (Value::Null, Value::Null) => true,
            (Bool(a), Bool(b)) => a == b,
            _ => false,
        }),
        Func::HashMurmur2 => Int(prng::hash_murmur2(v[0].int()?, v[1].int()?)),
        Func::HashFnv1a => Int(prng::hash_fnv1a(v[0].int()?, v[1].int()?)),
        Func::Permute => {
            let (val, size, seed) = (v[0].int()?, v[1].int()?, v[2].int()?);
            if size <= 0 {
                return Err("permute size parameter must be greater than zero".into());
            }
            Int(prng::permute(val, size, seed))
        }
        Func::And | Func::Or | Func::Case => unreachable!("evaluated lazily in call()"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str) -> Result<Value, String> {
        let mut names: Vec<String> = vec!["default_seed".into(), "x".into()];
        let e = parse(src, &mut |n| match names.iter().position(|m| m == n) {
            Some(i) => i,
            None => {
                names.push(n.into());
                names.len() - 1
            }
        })?;
        let mut vars = vec![Some(Value::Int(42)), Some(Value::Int(7))];
        vars.resize(names.len(), None);
        let mut rng = PgRng::new(1);
        e.eval(&mut Env { vars: &vars, names: &names, rng: &mut rng })
    }

    fn ok(src: &str) -> Value {
        run(src).unwrap_or_else(|e| panic!("{src}: {e}"))
    }

    #[test]
    fn integer_arithmetic_and_precedence() {
        assert_eq!(ok("1 + 2 * 3"), Value::Int(7));
        assert_eq!(ok("(1 + 2) * 3"), Value::Int(9));
        assert_eq!(ok("7 / 2"), Value::Int(3));
        assert_eq!(ok("-7 / 2"), Value::Int(-3));
        assert_eq!(ok("-7 % 3"), Value::Int(-1));
        assert_eq!(ok("mod(-7, 3)"), Value::Int(-1));
        assert_eq!(ok("10 - 2 - 3"), Value::Int(5));
        assert_eq!(ok(":x * 2"), Value::Int(14));
        assert_eq!(ok("1 << 3 + 1"), Value::Int(16));
        assert_eq!(ok("5 & 3 | 8"), Value::Int(9));
        assert_eq!(ok("5 # 1"), Value::Int(4));
        assert_eq!(ok("~0"), Value::Int(-1));
        assert_eq!(ok("-9223372036854775808"), Value::Int(i64::MIN));
        assert_eq!(ok("+4"), Value::Int(4));
        assert_eq!(ok("100000 * :x"), Value::Int(700000));
    }

    #[test]
    fn double_promotion_and_functions() {
        assert_eq!(ok("1 + 2.5"), Value::Double(3.5));
        assert_eq!(ok("7 / 2.0"), Value::Double(3.5));
        assert_eq!(ok("int(2.5)"), Value::Int(2));
        assert_eq!(ok("int(3.5)"), Value::Int(4));
        assert_eq!(ok("int(-2.7)"), Value::Int(-3));
        assert_eq!(ok("double(3)"), Value::Double(3.0));
        assert_eq!(ok("abs(-5)"), Value::Int(5));
        assert_eq!(ok("abs(-5.5)"), Value::Double(5.5));
        assert_eq!(ok("least(3, 1, 2)"), Value::Int(1));
        assert_eq!(ok("greatest(3, 1.5, 2)"), Value::Double(3.0));
        assert_eq!(ok("pow(2, 10)"), Value::Double(1024.0));
        assert_eq!(ok("power(2, 0.5)"), Value::Double(2f64.sqrt()));
        assert_eq!(ok("sqrt(16)"), Value::Double(4.0));
        assert_eq!(ok("exp(0)"), Value::Double(1.0));
        assert_eq!(ok("ln(1)"), Value::Double(0.0));
        assert_eq!(ok("pi()"), Value::Double(std::f64::consts::PI));
        assert_eq!(ok("1e3"), Value::Double(1000.0));
        assert_eq!(ok(".5 * 4"), Value::Double(2.0));
        // % is integer only, even with a double operand.
        assert_eq!(ok("7.6 % 3"), Value::Int(2));
    }

    #[test]
    fn booleans_nulls_and_case() {
        assert_eq!(ok("1 < 2"), Value::Bool(true));
        assert_eq!(ok("2 >= 3"), Value::Bool(false));
        assert_eq!(ok("1 != 1"), Value::Bool(false));
        assert_eq!(ok("1 <> 2"), Value::Bool(true));
        assert_eq!(ok("1 = 1.0"), Value::Bool(true));
        assert_eq!(ok("true AND NOT false"), Value::Bool(true));
        assert_eq!(ok("false OR null"), Value::Null);
        assert_eq!(ok("null AND false"), Value::Null);
        assert_eq!(ok("false AND :undefined_one"), Value::Bool(false));
        assert_eq!(ok("1 + null"), Value::Null);
        assert_eq!(ok("null IS NULL"), Value::Bool(true));
        assert_eq!(ok("1 ISNULL"), Value::Bool(false));
        assert_eq!(ok("1 NOTNULL"), Value::Bool(true));
        assert_eq!(ok("true IS NOT FALSE"), Value::Bool(true));
        assert_eq!(ok("1 < 2 IS TRUE"), Value::Bool(true));
        assert_eq!(ok("CASE WHEN :x > 5 THEN 1 WHEN :x > 2 THEN 2 ELSE 3 END"), Value::Int(1));
        assert_eq!(ok("case when 0 then 1 end"), Value::Null);
        assert_eq!(ok("not 1 = 2"), Value::Bool(true));
    }

    #[test]
    fn errors_match_pgbench() {
        assert_eq!(run("1 / 0").unwrap_err(), "division by zero");
        assert_eq!(run("1 % 0").unwrap_err(), "division by zero");
        assert_eq!(run("9223372036854775807 + 1").unwrap_err(), "bigint add out of range");
        assert_eq!(run("-9223372036854775808 - 1").unwrap_err(), "bigint sub out of range");
        assert_eq!(run("4611686018427387904 * 2").unwrap_err(), "bigint mul out of range");
        assert_eq!(run("-9223372036854775808 / -1").unwrap_err(), "bigint div out of range");
        assert_eq!(ok("-9223372036854775808 % -1"), Value::Int(0));
        assert_eq!(run("9223372036854775808").unwrap_err(), "bigint constant overflow");
        assert_eq!(run("99999999999999999999").unwrap_err(), "bigint constant overflow");
        assert_eq!(run("int(1e30)").unwrap_err(), "double to int overflow for 1000000000000000019884624838656.000000");
        assert_eq!(run("not 1").unwrap_err(), "cannot coerce int to boolean");
        assert_eq!(run("1 and true").unwrap_err(), "cannot coerce int to boolean");
        assert_eq!(run("true + 1").unwrap_err(), "cannot coerce boolean to int");
        assert_eq!(run(":nope + 1").unwrap_err(), "undefined variable \"nope\"");
        assert_eq!(run("random(5, 1)").unwrap_err(), "empty range given to random");
        assert_eq!(run("random(-9223372036854775808, 9223372036854775807)").unwrap_err(), "random range is too large");
        assert!(run("random_gaussian(1, 10, 1.5)").unwrap_err().starts_with("gaussian parameter must be at least 2.0"));
        assert!(run("random_exponential(1, 10, 0)").unwrap_err().starts_with("exponential parameter must be greater than zero"));
        assert!(run("random_zipfian(1, 10, 1.0)").unwrap_err().starts_with("zipfian parameter must be in range [1.001, 1000]"));
        assert_eq!(run("permute(1, 0)").unwrap_err(), "permute size parameter must be greater than zero");
        assert_eq!(run("nosuch(1)").unwrap_err(), "unexpected function name \"nosuch\"");
        assert_eq!(run("random(1)").unwrap_err(), "unexpected number of arguments: \"random\"");
        assert_eq!(run("least()").unwrap_err(), "at least one argument expected: \"least\"");
        assert!(run("1 +").unwrap_err().starts_with("syntax error"));
        assert!(run("(1").unwrap_err().starts_with("syntax error"));
        assert!(run("1 < 2 < 3").unwrap_err().starts_with("syntax error"));
        assert!(run("").unwrap_err().starts_with("missing expression"));
    }

    #[test]
    fn random_functions_stay_in_range() {
        for f in ["random(1, 10)", "random_exponential(1, 10, 2.5)", "random_gaussian(1, 10, 2.5)", "random_zipfian(1, 10, 1.5)"] {
            let mut names = vec!["default_seed".to_string()];
            let e = parse(f, &mut |n| {
                names.push(n.into());
                names.len() - 1
            })
            .unwrap();
            let mut rng = PgRng::new(7);
            let vars = vec![Some(Value::Int(0))];
            let mut seen = [0u32; 11];
            for _ in 0..20_000 {
                match e.eval(&mut Env { vars: &vars, names: &names, rng: &mut rng }).unwrap() {
                    Value::Int(i) => {
                        assert!((1..=10).contains(&i), "{f} gave {i}");
                        seen[i as usize] += 1;
                    }
                    v => panic!("{f} gave {v:?}"),
                }
            }
            assert!(seen[1..].iter().all(|&n| n > 0), "{f}: {seen:?}");
            if f.starts_with("random_exp") || f.starts_with("random_zipf") {
                assert!(seen[1] > seen[10] * 3, "{f} should favour low values: {seen:?}");
            }
            if f.starts_with("random_gauss") {
                assert!(seen[5] > seen[1] * 3, "{f} should favour the middle: {seen:?}");
            }
        }
    }

    /// Values computed by pgbench 15 itself (`\set r expr` then
    /// `SELECT :r`): the hashes and permutations are exact.
    #[test]
    fn hashes_and_permute_equal_pgbench() {
        for (e, want) in super::tests_pgbench::EXPECTED {
            assert_eq!(ok(e), Value::Int(*want), "{e}");
        }
        // A permutation: every value once.
        let mut seen: Vec<i64> = (0..100).map(|i| prng::permute(i, 100, 5)).collect();
        seen.sort();
        assert_eq!(seen, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn variable_text_forms() {
        let t = |v: Value| {
            let mut s = String::new();
            v.write_text(&mut s);
            s
        };
        assert_eq!(t(Value::Double(0.1)), "0.1");
        assert_eq!(t(Value::Double(1.0 / 3.0)), "0.333333333333333");
        assert_eq!(t(Value::Double(1e20)), "1e+20");
        assert_eq!(t(Value::Double(123456.0)), "123456");
        assert_eq!(t(Value::Double(1.5e-7)), "1.5e-07");
        assert_eq!(t(Value::Bool(true)), "true");
        assert_eq!(t(Value::Null), "NULL");
        assert_eq!(Value::from_text("42"), Ok(Value::Int(42)));
        assert_eq!(Value::from_text("4.5"), Ok(Value::Double(4.5)));
        assert_eq!(Value::from_text("t"), Ok(Value::Bool(true)));
        assert_eq!(Value::from_text("off"), Ok(Value::Bool(false)));
        assert_eq!(Value::from_text("NULL"), Ok(Value::Null));
        assert!(Value::from_text("abc").is_err());
    }
}

/// Expected values of deterministic functions, as pgbench computed them.
#[cfg(test)]
mod tests_pgbench {
    pub const EXPECTED: &[(&str, i64)] = &[
        ("hash_fnv1a(1, 0)", -8517097267634966620),
        ("hash_fnv1a(-123456789, 42)", -4057490570364539102),
        ("hash_murmur2(1, 0)", -8089716718896805586),
        ("hash_murmur2(987654321, -5)", -803934369863072266),
        ("permute(0, 10, 1)", 5),
        ("permute(7, 1000, 12345)", 260),
        ("permute(123456, 1000000, -77)", 590291),
        ("permute(3, 2, 9)", 0),
        ("hash(5, 8)", 9093237173297530606),
        ("permute(99, 100, 0)", 38),
    ];
}
