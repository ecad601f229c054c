//! `fairbench server start|stop|list|env|profiles`.

use crate::cli::{ServerAction, ServerArgs, ServerStartArgs};
use crate::error::Result;
use crate::server::{self, profile, Kind, StartOpts};
use crate::usage;
use std::time::Duration;

/// How long a server may take to shut down cleanly before it is killed.
const STOP_LIMIT: Duration = Duration::from_secs(60);

pub fn server(a: ServerArgs) -> Result<()> {
    match a.action {
        ServerAction::Start(s) => start(*s),
        ServerAction::Stop { names, all } => stop(&names, all),
        ServerAction::List { json, format: key } => {
            let key = key.unwrap_or(if json { crate::output::FormatKey::Json } else { crate::output::FormatKey::Text });
            print!("{}", crate::view::format::sandboxes(&server::list(), key)?);
            Ok(())
        }
        ServerAction::Env { name } => {
            print!("{}", server::find(&name)?.env_lines());
            Ok(())
        }
        ServerAction::Profiles { name, data_size } => profiles(name.as_deref(), data_size.as_deref()),
    }
}

/// `KEY=VALUE` pairs of `--set`.
pub fn parse_sets(sets: &[String]) -> Result<Vec<(String, String)>> {
    sets.iter()
        .map(|s| match s.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
            _ => Err(usage!("--set {s:?}: use KEY=VALUE, e.g. --set innodb_buffer_pool_size=1G")),
        })
        .collect()
}

/// The options of `server start` as a sandbox request.
pub fn start_opts(s: &ServerStartArgs) -> Result<StartOpts> {
    let mut machine = profile::this_machine();
    if let Some(r) = &s.ram {
        machine.ram = profile::parse_size(r)?;
    }
    if let Some(c) = s.cores {
        if c == 0 {
            return Err(usage!("--cores=0: give at least 1"));
        }
        machine.cores = c;
    }
    machine.data = s.data_size.as_deref().map(profile::parse_size).transpose()?;
    Ok(StartOpts {
        kind: Kind::parse(&s.kind)?,
        profile: s.profile.clone(),
        sets: parse_sets(&s.sets)?,
        port: s.port,
        dir: s.dir.clone(),
        user: s.user.clone(),
        password: s.password.clone(),
        database: s.database.clone(),
        machine,
        tls_dir: s.tls_dir.clone(),
        tls_only_user: s.tls_only_user.clone(),
        timeout: Duration::from_secs(s.timeout.max(1)),
        kind_args: s.kind_args.clone(),
        build: match (&s.engine_version, &s.basedir) {
            (Some(_), Some(_)) => return Err(usage!("--version and --basedir: give one (a version fetched, or a build of yours)")),
            (Some(v), None) => Some(Kind::parse(&s.kind)?.fetch(v)?),
            (None, Some(d)) => Some(server::builds::basedir(d)?),
            (None, None) => None,
        },
    })
}

fn start(s: ServerStartArgs) -> Result<()> {
    let o = start_opts(&s)?;
    let sb = server::start(&o)?;
    for n in &sb.notes {
        eprintln!("note: {n}");
    }
    eprintln!("{} started: {} {}, profile {}, port {}, dir {} (stop it with `fairbench server stop {}`)", sb.name, sb.kind, sb.version, sb.profile, sb.port, sb.dir.display(), sb.name);
    if let Some(o) = &sb.origin {
        eprintln!("  build: {o}");
    }
    for l in sb.details() {
        eprintln!("  {l}");
    }
    if s.env {
        print!("{}", sb.env_lines());
    } else {
        println!("{}", sb.url);
    }
    Ok(())
}

fn stop(names: &[String], all: bool) -> Result<()> {
    let targets = if all {
        server::list()
    } else if names.is_empty() {
        return Err(usage!("server stop: name a sandbox (`fairbench server list`), or give --all"));
    } else {
        names.iter().map(|n| server::find(n)).collect::<Result<Vec<_>>>()?
    };
    for sb in &targets {
        server::stop(sb, STOP_LIMIT)?;
        eprintln!("{} stopped", sb.name);
    }
    Ok(())
}

fn profiles(name: Option<&str>, data_size: Option<&str>) -> Result<()> {
    let mut m = profile::this_machine();
    m.data = data_size.map(profile::parse_size).transpose()?;
    match name {
        None => {
            for (n, _) in profile::PROFILES {
                println!("{n:<18} {}", profile::describe(n)?);
            }
            println!("\nShow one: fairbench server profiles NAME (the memory-fit ones also as cache=0.25x-data, with --data-size)");
        }
        Some(n) => {
            print!("{}", profile::text(n)?);
            println!("\n# on this machine ({} RAM, {} cores):", crate::units::human_bytes(m.ram as f64), m.cores);
            for k in Kind::with_own_settings() {
                match profile::resolve(n, k, &m) {
                    Ok(r) => {
                        println!("# {}:", k.name());
                        for (key, v) in &r.settings {
                            println!("#   {key} = {v}");
                        }
                        for n in &r.notes {
                            println!("#   ({n})");
                        }
                    }
                    Err(e) => println!("# {}: {e}", k.name()),
                }
            }
        }
    }
    Ok(())
}
