//! The lexer and the parser of pgbench's expressions, with its grammar's
//! precedence.

use super::*;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(i64),
    /// 9223372036854775808: only valid right after a unary minus.
    MaxPlusOne,
    Double(f64),
    Bool(bool),
    Null,
    Var(String),
    Ident(String),
    Op(&'static str),
    Kw(&'static str),
}

const KEYWORDS: &[&str] = &["and", "or", "not", "is", "isnull", "notnull", "case", "when", "then", "else", "end"];
const OPS: &[&str] = &["<<", ">>", "<=", ">=", "<>", "!=", "+", "-", "*", "/", "%", "(", ")", ",", "<", ">", "=", "&", "|", "#", "~"];

fn lex(s: &str) -> Result<Vec<Tok>, String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b':' {
            let st = i + 1;
            let mut j = st;
            while j < b.len() && word(b[j]) {
                j += 1;
            }
            if j == st || b[st].is_ascii_digit() {
                return Err(format!("syntax error at \"{}\"", &s[i..]));
            }
            out.push(Tok::Var(s[st..j].to_string()));
            i = j;
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let st = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let mut double = false;
            if i < b.len() && b[i] == b'.' {
                double = true;
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    double = true;
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let text = &s[st..i];
            if double {
                out.push(Tok::Double(text.parse().map_err(|_| format!("invalid number \"{text}\""))?));
            } else if text == "9223372036854775808" {
                out.push(Tok::MaxPlusOne);
            } else {
                out.push(Tok::Int(text.parse().map_err(|_| "bigint constant overflow".to_string())?));
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            let st = i;
            while i < b.len() && word(b[i]) {
                i += 1;
            }
            let w = s[st..i].to_ascii_lowercase();
            match w.as_str() {
                "true" => out.push(Tok::Bool(true)),
                "false" => out.push(Tok::Bool(false)),
                "null" => out.push(Tok::Null),
                _ => match KEYWORDS.iter().find(|k| **k == w) {
                    Some(k) => out.push(Tok::Kw(k)),
                    None => out.push(Tok::Ident(w)),
                },
            }
            continue;
        }
        match OPS.iter().find(|o| s[i..].starts_with(**o)) {
            Some(o) => {
                out.push(Tok::Op(if *o == "!=" { "<>" } else { o }));
                i += o.len();
            }
            None => return Err(format!("unexpected character \"{}\"", &s[i..].chars().next().unwrap_or(' '))),
        }
    }
    Ok(out)
}

/// Parses `text` into an expression; `slot` gives the slot of a variable name.
pub fn parse(text: &str, slot: &mut dyn FnMut(&str) -> usize) -> Result<Expr, String> {
    let toks = lex(text)?;
    let mut p = Parser { toks, pos: 0, slot };
    if p.toks.is_empty() {
        return Err("missing expression".into());
    }
    let e = p.expr(0)?;
    if p.pos < p.toks.len() {
        return Err(format!("syntax error at {}", p.show(p.pos)));
    }
    Ok(e)
}

struct Parser<'a> {
    toks: Vec<Tok>,
    pos: usize,
    slot: &'a mut dyn FnMut(&str) -> usize,
}

// Binding powers, lowest first, as pgbench's grammar orders them.
const P_OR: u8 = 1;
const P_AND: u8 = 2;
const P_NOT: u8 = 3;
const P_IS: u8 = 4;
const P_CMP: u8 = 5;
const P_BIT: u8 = 6;
const P_ADD: u8 = 7;
const P_MUL: u8 = 8;
const P_UNARY: u8 = 9;

/// Precedence of a binary or postfix operator, and whether it is non-associative.
fn binop(t: &Tok) -> Option<(u8, bool)> {
    Some(match t {
        Tok::Kw("or") => (P_OR, false),
        Tok::Kw("and") => (P_AND, false),
        Tok::Kw("is") | Tok::Kw("isnull") | Tok::Kw("notnull") => (P_IS, true),
        Tok::Op("<" | ">" | "=" | "<=" | ">=" | "<>") => (P_CMP, true),
        Tok::Op("|" | "#" | "&" | "<<" | ">>") => (P_BIT, false),
        Tok::Op("+" | "-") => (P_ADD, false),
        Tok::Op("*" | "/" | "%") => (P_MUL, false),
        _ => return None,
    })
}

fn call2(f: Func, a: Expr, b: Expr) -> Expr {
    Expr::Call(f, vec![a, b])
}

fn not(e: Expr) -> Expr {
    Expr::Call(Func::Not, vec![e])
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn show(&self, at: usize) -> String {
        match self.toks.get(at) {
            None => "end of expression".into(),
            Some(t) => format!("\"{}\"", tok_text(t)),
        }
    }

    fn expect(&mut self, t: Tok) -> Result<(), String> {
        if self.peek() == Some(&t) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("syntax error at {}: expected \"{}\"", self.show(self.pos), tok_text(&t)))
        }
    }

    /// Precedence climbing over the binary and postfix operators.
    fn expr(&mut self, min: u8) -> Result<Expr, String> {
        let mut lhs = self.prefix()?;
        while let Some(t) = self.peek().cloned() {
            let Some((prec, nonassoc)) = binop(&t) else { break };
            if prec <= min {
                break;
            }
            self.pos += 1;
            lhs = match t {
                Tok::Kw("isnull") => call2(Func::Is, lhs, Expr::Const(Value::Null)),
                Tok::Kw("notnull") => not(call2(Func::Is, lhs, Expr::Const(Value::Null))),
                Tok::Kw("is") => self.is_tail(lhs)?,
                Tok::Op(op) => {
                    let rhs = self.expr(prec)?;
                    match op {
                        "+" => call2(Func::Add, lhs, rhs),
                        "-" => call2(Func::Sub, lhs, rhs),
                        "*" => call2(Func::Mul, lhs, rhs),
                        "/" => call2(Func::Div, lhs, rhs),
                        "%" => call2(Func::Mod, lhs, rhs),
                        "<" => call2(Func::Lt, lhs, rhs),
                        "<=" => call2(Func::Le, lhs, rhs),
                        ">" => call2(Func::Lt, rhs, lhs),
                        ">=" => call2(Func::Le, rhs, lhs),
                        "=" => call2(Func::Eq, lhs, rhs),
                        "<>" => call2(Func::Ne, lhs, rhs),
                        "&" => call2(Func::BitAnd, lhs, rhs),
                        "|" => call2(Func::BitOr, lhs, rhs),
                        "#" => call2(Func::BitXor, lhs, rhs),
                        "<<" => call2(Func::Shl, lhs, rhs),
                        _ => call2(Func::Shr, lhs, rhs),
                    }
                }
                Tok::Kw("and") => call2(Func::And, lhs, self.expr(prec)?),
                _ => call2(Func::Or, lhs, self.expr(prec)?),
            };
            if nonassoc && self.peek().and_then(binop).is_some_and(|(p, _)| p == prec) {
                return Err(format!("syntax error at {}", self.show(self.pos)));
            }
        }
        Ok(lhs)
    }

    /// After IS: [NOT] NULL | TRUE | FALSE.
    fn is_tail(&mut self, lhs: Expr) -> Result<Expr, String> {
        let negated = self.peek() == Some(&Tok::Kw("not"));
        if negated {
            self.pos += 1;
        }
        let rhs = match self.peek() {
            Some(Tok::Null) => Value::Null,
            Some(Tok::Bool(b)) => Value::Bool(*b),
            _ => return Err(format!("syntax error at {}: IS takes NULL, TRUE or FALSE", self.show(self.pos))),
        };
        self.pos += 1;
        let e = call2(Func::Is, lhs, Expr::Const(rhs));
        Ok(if negated { not(e) } else { e })
    }

    fn prefix(&mut self) -> Result<Expr, String> {
        let Some(t) = self.peek().cloned() else { return Err("syntax error at end of expression".into()) };
        self.pos += 1;
        Ok(match t {
            Tok::Int(i) => Expr::Const(Value::Int(i)),
            Tok::Double(d) => Expr::Const(Value::Double(d)),
            Tok::Bool(b) => Expr::Const(Value::Bool(b)),
            Tok::Null => Expr::Const(Value::Null),
            Tok::MaxPlusOne => return Err("bigint constant overflow".into()),
            Tok::Var(name) => Expr::Var((self.slot)(&name)),
            Tok::Op("(") => {
                let e = self.expr(0)?;
                self.expect(Tok::Op(")"))?;
                e
            }
            Tok::Op("+") => self.expr(P_UNARY)?,
            Tok::Op("-") => {
                if self.peek() == Some(&Tok::MaxPlusOne) {
                    self.pos += 1;
                    Expr::Const(Value::Int(i64::MIN))
                } else {
                    call2(Func::Sub, Expr::Const(Value::Int(0)), self.expr(P_UNARY)?)
                }
            }
            Tok::Op("~") => call2(Func::BitXor, Expr::Const(Value::Int(-1)), self.expr(P_BIT)?),
            Tok::Kw("not") => not(self.expr(P_NOT)?),
            Tok::Kw("case") => self.case()?,
            Tok::Ident(name) => self.function(&name)?,
            other => return Err(format!("syntax error at \"{}\"", tok_text(&other))),
        })
    }

    fn case(&mut self) -> Result<Expr, String> {
        let mut args = Vec::new();
        while self.peek() == Some(&Tok::Kw("when")) {
            self.pos += 1;
            args.push(self.expr(0)?);
            self.expect(Tok::Kw("then"))?;
            args.push(self.expr(0)?);
        }
        if args.is_empty() {
            return Err(format!("syntax error at {}: CASE needs WHEN", self.show(self.pos)));
        }
        if self.peek() == Some(&Tok::Kw("else")) {
            self.pos += 1;
            args.push(self.expr(0)?);
        } else {
            args.push(Expr::Const(Value::Null));
        }
        self.expect(Tok::Kw("end"))?;
        Ok(Expr::Call(Func::Case, args))
    }

    fn function(&mut self, name: &str) -> Result<Expr, String> {
        let Some((_, f, arity)) = FUNCTIONS.iter().find(|(n, _, _)| *n == name) else {
            return Err(format!("unexpected function name \"{name}\""));
        };
        self.expect(Tok::Op("("))?;
        let mut args = Vec::new();
        if self.peek() != Some(&Tok::Op(")")) {
            loop {
                args.push(self.expr(0)?);
                if self.peek() == Some(&Tok::Op(",")) {
                    self.pos += 1;
                } else {
                    break;
                }
            }
        }
        self.expect(Tok::Op(")"))?;
        let n = args.len();
        let ok = match arity {
            Arity::Exactly(k) => n == *k,
            Arity::AtLeastOne => n >= 1,
            Arity::Hash => (1..=2).contains(&n),
            Arity::Permute => (2..=3).contains(&n),
        };
        if !ok {
            return Err(match arity {
                Arity::AtLeastOne => format!("at least one argument expected: \"{name}\""),
                _ => format!("unexpected number of arguments: \"{name}\""),
            });
        }
        if matches!((arity, n), (Arity::Hash, 1) | (Arity::Permute, 2)) {
            args.push(Expr::Var((self.slot)("default_seed")));
        }
        Ok(Expr::Call(*f, args))
    }
}

fn tok_text(t: &Tok) -> String {
    match t {
        Tok::Int(i) => i.to_string(),
        Tok::MaxPlusOne => "9223372036854775808".into(),
        Tok::Double(d) => d.to_string(),
        Tok::Bool(b) => b.to_string(),
        Tok::Null => "null".into(),
        Tok::Var(v) => format!(":{v}"),
        Tok::Ident(s) => s.clone(),
        Tok::Op(o) | Tok::Kw(o) => o.to_string(),
    }
}
