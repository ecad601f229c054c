//! PostgreSQL engine over tokio-postgres: extended protocol with statements
//! prepared once per connection (parameter types taken from the first
//! call), simple protocol for text mode, binary COPY for loading.

use super::{dollar_params, interpolate, ColType, Column, ConnConfig, DbError, DbResult, ErrKind, Param, Row, RowSource, SslMode, Statement, StmtId};
use futures_util::SinkExt;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, SimpleQueryMessage};

pub struct PgConn {
    client: Client,
    stmts: Vec<Option<tokio_postgres::Statement>>,
    text: String,
}

pub fn to_db_error(e: tokio_postgres::Error) -> DbError {
    match e.code() {
        // Terminated by an administrator or a server shutdown: the
        // connection is gone, not the statement wrong.
        Some(c) if ["57P01", "57P02", "57P03", "08006", "08003", "08000"].contains(&c.code()) => {
            DbError { kind: ErrKind::ConnectionLost, code: c.code().to_string(), message: db_message(&e) }
        }
        Some(c) => DbError { kind: ErrKind::Fatal, code: c.code().to_string(), message: db_message(&e) },
        None => DbError { kind: ErrKind::ConnectionLost, code: String::new(), message: format!("connection lost: {e}") },
    }
}

fn db_message(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(d) => d.message().to_string(),
        None => e.to_string(),
    }
}

impl PgConn {
    pub async fn connect(cfg: &ConnConfig, host_index: usize) -> DbResult<PgConn> {
        let t = &cfg.target;
        let mut c = tokio_postgres::Config::new();
        c.user(&t.user).dbname(&t.database).application_name("fairbench");
        if let Some(p) = &t.password {
            c.password(p);
        }
        match &t.socket {
            Some(dir) => {
                c.host_path(dir);
                c.port(t.hosts.first().map(|h| h.1).unwrap_or(5432));
            }
            None => {
                let (h, p) = t.host_for(host_index);
                c.host(h).port(*p);
            }
        }
        c.ssl_mode(match t.ssl_mode {
            SslMode::Disabled => tokio_postgres::config::SslMode::Disable,
            SslMode::Preferred => tokio_postgres::config::SslMode::Prefer,
            _ => tokio_postgres::config::SslMode::Require,
        });
        let fail = |e: tokio_postgres::Error| {
            let mut d = to_db_error(e);
            if d.message.starts_with("connection lost: ") {
                d.message = d.message["connection lost: ".len()..].to_string();
            }
            d.kind = ErrKind::Connect;
            d
        };
        let client = if t.ssl_mode == SslMode::Disabled || t.socket.is_some() {
            let (client, conn) = c.connect(tokio_postgres::NoTls).await.map_err(fail)?;
            tokio::spawn(async move {
                let _ = conn.await;
            });
            client
        } else {
            let mut b = native_tls::TlsConnector::builder();
            if matches!(t.ssl_mode, SslMode::Preferred | SslMode::Required) {
                b.danger_accept_invalid_certs(true);
            }
            if t.ssl_mode == SslMode::VerifyCa {
                b.danger_accept_invalid_hostnames(true);
            }
            if let Some(ca) = &t.ssl_ca {
                let pem = std::fs::read(ca).map_err(|e| DbError { kind: ErrKind::Connect, code: String::new(), message: format!("cannot read ssl-ca {ca}: {e}") })?;
                let cert = native_tls::Certificate::from_pem(&pem).map_err(|e| DbError { kind: ErrKind::Connect, code: String::new(), message: format!("bad ssl-ca {ca}: {e}") })?;
                b.add_root_certificate(cert);
            }
            let tls = b.build().map_err(|e| DbError { kind: ErrKind::Connect, code: String::new(), message: format!("TLS setup: {e}") })?;
            let (client, conn) = c.connect(postgres_native_tls::MakeTlsConnector::new(tls)).await.map_err(fail)?;
            tokio::spawn(async move {
                let _ = conn.await;
            });
            client
        };
        Ok(PgConn { client, stmts: Vec::new(), text: String::new() })
    }

    pub async fn exec(&mut self, id: StmtId, st: &Statement, params: &[Param<'_>], prepared: bool) -> DbResult<u64> {
        if !prepared {
            interpolate(&st.sql, params, &mut self.text, false);
            let sql = std::mem::take(&mut self.text);
            let r = self.query(&sql).await;
            self.text = sql;
            return r.map(|(_, n)| n);
        }
        let i = id.0 as usize;
        if self.stmts.len() <= i {
            self.stmts.resize(i + 1, None);
        }
        if self.stmts[i].is_none() {
            // Integers are typed BIGINT so one statement serves INTEGER and
            // BIGINT schemas alike (int4 = int8 still uses the index).
            let types: Vec<Type> = params
                .iter()
                .map(|p| match p {
                    Param::Int(_) => Type::INT8,
                    Param::Text(_) => Type::TEXT,
                })
                .collect();
            let s = self.client.prepare_typed(&dollar_params(&st.sql), &types).await.map_err(to_db_error)?;
            self.stmts[i] = Some(s);
        }
        let stmt = self.stmts[i].as_ref().unwrap();
        let refs: Vec<&(dyn ToSql + Sync)> = params
            .iter()
            .map(|p| match p {
                Param::Int(v) => v as &(dyn ToSql + Sync),
                Param::Text(s) => s as &(dyn ToSql + Sync),
            })
            .collect();
        let n = self.client.execute(stmt, &refs).await.map_err(to_db_error)?;
        Ok(if st.returns_rows { 0 } else { n })
    }

    pub async fn query(&mut self, sql: &str) -> DbResult<(bool, u64)> {
        let msgs = self.client.simple_query(sql).await.map_err(to_db_error)?;
        let mut rows = false;
        let mut n = 0;
        for m in msgs {
            match m {
                SimpleQueryMessage::Row(_) | SimpleQueryMessage::RowDescription(_) => rows = true,
                SimpleQueryMessage::CommandComplete(c) => n = c,
                _ => {}
            }
        }
        Ok((rows, if rows { 0 } else { n }))
    }

    pub async fn query_rows(&mut self, sql: &str) -> DbResult<Vec<Vec<Option<String>>>> {
        let msgs = self.client.simple_query(sql).await.map_err(to_db_error)?;
        Ok(msgs
            .into_iter()
            .filter_map(|m| match m {
                SimpleQueryMessage::Row(r) => Some((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect()),
                _ => None,
            })
            .collect())
    }

    /// Binary COPY: the cheapest path for the server (no text parsing).
    pub async fn bulk_load(&mut self, table: &str, cols: &[Column], rows: &mut dyn RowSource) -> DbResult<u64> {
        let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
        let sql = format!("COPY {table} ({}) FROM STDIN (FORMAT binary)", names.join(","));
        let sink = self.client.copy_in::<_, bytes::Bytes>(sql.as_str()).await.map_err(to_db_error)?;
        futures_util::pin_mut!(sink);
        let mut buf = bytes::BytesMut::with_capacity(1 << 20);
        buf.extend_from_slice(b"PGCOPY\n\xff\r\n\0");
        buf.extend_from_slice(&0i32.to_be_bytes());
        buf.extend_from_slice(&0i32.to_be_bytes());
        let mut row = Row::default();
        let mut total = 0u64;
        while rows.next_row(&mut row) {
            buf.extend_from_slice(&(cols.len() as i16).to_be_bytes());
            let (mut ii, mut ti) = (0, 0);
            for c in cols {
                match c.ty {
                    ColType::Int => {
                        buf.extend_from_slice(&4i32.to_be_bytes());
                        buf.extend_from_slice(&(row.ints[ii] as i32).to_be_bytes());
                        ii += 1;
                    }
                    ColType::BigInt => {
                        buf.extend_from_slice(&8i32.to_be_bytes());
                        buf.extend_from_slice(&row.ints[ii].to_be_bytes());
                        ii += 1;
                    }
                    ColType::Text => {
                        let t = &row.texts[ti];
                        buf.extend_from_slice(&(t.len() as i32).to_be_bytes());
                        buf.extend_from_slice(t);
                        ti += 1;
                    }
                }
            }
            total += 1;
            if buf.len() >= 1 << 20 {
                sink.send(buf.split().freeze()).await.map_err(to_db_error)?;
            }
        }
        buf.extend_from_slice(&(-1i16).to_be_bytes());
        sink.send(buf.split().freeze()).await.map_err(to_db_error)?;
        sink.as_mut().finish().await.map_err(to_db_error)?;
        Ok(total)
    }

    /// Multi-row INSERTs (`--load-mode=insert`), as sysbench loads.
    pub async fn bulk_insert(&mut self, table: &str, cols: &[Column], rows: &mut dyn RowSource, bulk_rows: usize) -> DbResult<u64> {
        let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
        let mut row = Row::default();
        let mut total = 0u64;
        loop {
            let mut sql = String::new();
            let mut n = 0;
            while n < bulk_rows.max(1) && rows.next_row(&mut row) {
                super::mysql::encode_values(cols, &row, &mut sql, n == 0, false);
                n += 1;
            }
            if n == 0 {
                return Ok(total);
            }
            self.client.batch_execute(&format!("INSERT INTO {table} ({}) VALUES {sql}", names.join(","))).await.map_err(to_db_error)?;
            total += n as u64;
        }
    }

    pub fn close(self) {
        drop(self.client);
    }
}
