//! A connection to one host of a PostgreSQL host list, chosen as libpq
//! chooses (see hosts.rs for the rules).

use super::{drop_inner, hosts, Conn, ConnConfig, DbError, DbResult, ErrKind, Inner};

impl Conn {
    /// Opens a connection the way libpq goes through a PostgreSQL host
    /// list: every client the same way, the hosts in order (or shuffled
    /// once per attempt), each within `connect_timeout`; a host that
    /// refuses or whose session does not fit `target_session_attrs` is
    /// passed over. None fits: one error naming every host and why.
    pub(super) async fn open_chosen(cfg: &ConnConfig) -> DbResult<(Inner, usize)> {
        let t = &cfg.target;
        let attrs = t.session_attrs;
        // A socket directory names one server whatever the host list says.
        let n = if t.socket.is_some() { 1 } else { t.hosts.len().max(1) };
        let mut refusals = hosts::Refusals::default();
        // prefer-standby: the first host that was not a standby, kept open
        // in case no host is one.
        let mut fallback: Option<(Inner, usize)> = None;
        let mut only_error = None;
        for h in hosts::order(n, t.load_balance) {
            let label = match &t.socket {
                Some(dir) => dir.clone(),
                None => t.hosts.get(h).map(hosts::host_port).unwrap_or_default(),
            };
            let tried = match t.connect_timeout {
                Some(d) => tokio::time::timeout(d, Self::open_checked(cfg, h, attrs.checks()))
                    .await
                    .unwrap_or_else(|_| Err(DbError { kind: ErrKind::Connect, code: String::new(), message: format!("no answer within connect_timeout={}", d.as_secs()) })),
                None => Self::open_checked(cfg, h, attrs.checks()).await,
            };
            let (inner, state) = match tried {
                Ok(c) => c,
                Err(e) if e.kind == ErrKind::Connect && !hosts::stops_the_search(&e.code) => {
                    refusals.add(&label, &e.message);
                    only_error = Some(e);
                    continue;
                }
                Err(e) => {
                    if let Some((f, _)) = fallback {
                        drop_inner(f).await;
                    }
                    return Err(e);
                }
            };
            match state {
                Some(s) if !attrs.fits(s) && attrs == hosts::SessionAttrs::PreferStandby && fallback.is_none() => fallback = Some((inner, h)),
                Some(s) if !attrs.fits(s) => {
                    refusals.add(&label, s.describe());
                    drop_inner(inner).await;
                }
                _ => {
                    if let Some((f, _)) = fallback {
                        drop_inner(f).await;
                    }
                    return Ok((inner, h));
                }
            }
        }
        if let Some(f) = fallback {
            return Ok(f);
        }
        match only_error {
            // One host that refused: its own error, as without a list.
            Some(e) if n == 1 => Err(e),
            _ => Err(DbError { kind: ErrKind::Connect, code: String::new(), message: refusals.message(attrs) }),
        }
    }

    /// Opens host `h` and, when `check`, reads its session's state.
    async fn open_checked(cfg: &ConnConfig, h: usize, check: bool) -> DbResult<(Inner, Option<hosts::HostState>)> {
        let mut inner = Self::open(cfg, h).await?;
        if !check {
            return Ok((inner, None));
        }
        let reported = match &inner {
            Inner::PgFast(c) => c.reported(),
            Inner::Pg(c) => c.reported(),
            _ => None,
        };
        let state = match reported {
            Some(s) => Ok(s),
            None => {
                let rows = match &mut inner {
                    Inner::PgFast(c) => c.query_rows(hosts::HostState::QUERY).await,
                    Inner::Pg(c) => c.query_rows(hosts::HostState::QUERY).await,
                    _ => Ok(Vec::new()),
                };
                rows.and_then(|r| {
                    r.first().and_then(|row| hosts::HostState::from_row(row)).ok_or_else(|| DbError {
                        kind: ErrKind::Connect,
                        code: String::new(),
                        message: "no answer to the session state query".into(),
                    })
                })
            }
        };
        match state {
            Ok(s) => Ok((inner, Some(s))),
            Err(e) => {
                drop_inner(inner).await;
                Err(DbError { kind: ErrKind::Connect, code: String::new(), message: format!("cannot read its session state: {}", e.message) })
            }
        }
    }
}
