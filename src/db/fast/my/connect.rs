//! Opening a session: the handshake, TLS, authentication (native and
//! caching_sha2 passwords, the auth switch) and the session's settings.
//! Run once per connection, so kept apart from the statements' path.

use super::*;

impl MyFast {
    pub async fn connect(cfg: &ConnConfig, host_index: usize) -> DbResult<Choice<MyFast>> {
        let mode = cfg.target.ssl_mode;
        match MyFast::open(cfg, host_index, mode).await {
            // PREFERRED: a TLS handshake that fails is tried again without
            // TLS, as the driver path does.
            Err(e) if mode == SslMode::Preferred && tls::is_tls_failure(&e) => MyFast::open(cfg, host_index, SslMode::Disabled).await,
            r => r,
        }
    }

    async fn open(cfg: &ConnConfig, host_index: usize, mode: SslMode) -> DbResult<Choice<MyFast>> {
        let t = &cfg.target;
        // A unix socket is local: PREFERRED stays plain there (as MySQL's
        // own client does); REQUIRED and the VERIFY modes still encrypt.
        let tls_cfg = match mode {
            SslMode::Disabled => None,
            SslMode::Preferred if t.socket.is_some() => None,
            _ => Some(tls::config(t)?),
        };
        let host = match &t.socket {
            Some(_) => "localhost",
            None => t.host_for(host_index).0.as_str(),
        };
        let sock = match &t.socket {
            Some(path) => Sock::unix(path).await,
            None => {
                let (h, p) = t.host_for(host_index);
                Sock::tcp(h, *p).await
            }
        }
        .map_err(|e| DbError { kind: ErrKind::Connect, code: "2002".into(), message: format!("Input/output error: {e}") })?;
        let mut c = MyFast {
            sock,
            r: ReadBuf::new(),
            w: Vec::with_capacity(4096),
            big: Vec::new(),
            deprecate_eof: false,
            cache_meta: false,
            executing: None,
            seq: 0,
            stmts: Vec::new(),
            text: String::new(),
            types: Vec::new(),
            broken: false,
            last_insert_id: 0,
        };
        let p = c.next().await.map_err(connect_io)?;
        let hs = c.payload(p).to_vec();
        if hs.first() == Some(&0xff) {
            let mut e = server_error(&hs);
            e.kind = ErrKind::Connect;
            return Err(e);
        }
        if hs.first() != Some(&10) {
            return Ok(Choice::Fallback);
        }
        let ver_end = hs[1..].iter().position(|&b| b == 0).map(|x| x + 1).ok_or_else(bad_packet)?;
        let version = String::from_utf8_lossy(&hs[1..ver_end]).into_owned();
        let mut i = ver_end + 1 + 4;
        let mut nonce = hs.get(i..i + 8).ok_or_else(bad_packet)?.to_vec();
        i += 9;
        let mut caps = u16::from_le_bytes([hs[i], hs[i + 1]]) as u32;
        i += 2;
        let mut plugin: Vec<u8> = b"mysql_native_password".to_vec();
        let mut mariadb_caps = 0;
        if hs.len() > i + 16 {
            i += 3;
            caps |= (u16::from_le_bytes([hs[i], hs[i + 1]]) as u32) << 16;
            i += 2;
            let auth_len = hs[i] as usize;
            if caps & CLIENT_LONG_PASSWORD == 0 {
                // MariaDB clears CLIENT_MYSQL (bit 0) and puts its own
                // capabilities in the last 4 of the 10 reserved bytes.
                mariadb_caps = u32::from_le_bytes([hs[i + 7], hs[i + 8], hs[i + 9], hs[i + 10]]);
            }
            i += 11;
            let n2 = 13.max(auth_len.saturating_sub(8));
            let part2 = &hs[i..(i + n2).min(hs.len())];
            nonce.extend_from_slice(part2.strip_suffix(&[0]).unwrap_or(part2));
            i += n2;
            if caps & CLIENT_PLUGIN_AUTH != 0 && i < hs.len() {
                let end = hs[i..].iter().position(|&b| b == 0).map(|x| i + x).unwrap_or(hs.len());
                plugin = hs[i..end].to_vec();
            }
        }
        if caps & CLIENT_PROTOCOL_41 == 0 || caps & CLIENT_SECURE_CONNECTION == 0 {
            return Ok(Choice::Fallback);
        }
        let pass = t.password.as_deref().unwrap_or("").as_bytes();
        let Some(auth) = scramble(&plugin, &nonce, pass) else { return Ok(Choice::Fallback) };
        let tls_cfg = match tls_cfg {
            // PREFERRED: TLS when the server offers it.
            Some(_) if caps & CLIENT_SSL == 0 && mode == SslMode::Preferred => None,
            Some(_) if caps & CLIENT_SSL == 0 => {
                return Err(DbError {
                    kind: ErrKind::Connect,
                    code: "2026".into(),
                    message: format!("ssl-mode={} but the server does not offer TLS (turn TLS on in the server, or use ssl-mode=PREFERRED or DISABLED)", mode.name()),
                });
            }
            other => other,
        };
        let mut want = CLIENT_PROTOCOL_41
            | CLIENT_SECURE_CONNECTION
            | CLIENT_LONG_PASSWORD
            | CLIENT_TRANSACTIONS
            | CLIENT_LOCAL_FILES
            | CLIENT_MULTI_STATEMENTS
            | CLIENT_MULTI_RESULTS
            | CLIENT_PS_MULTI_RESULTS
            | CLIENT_DEPRECATE_EOF
            | CLIENT_PLUGIN_AUTH;
        if !t.database.is_empty() {
            want |= CLIENT_CONNECT_WITH_DB;
        }
        if tls_cfg.is_some() {
            want |= CLIENT_SSL;
        }
        let client_caps = want & caps;
        // Skipped metadata is only understood here without the EOF packets.
        let client_mariadb_caps = if client_caps & (CLIENT_LONG_PASSWORD | CLIENT_DEPRECATE_EOF) == CLIENT_DEPRECATE_EOF { mariadb_caps & MARIADB_CLIENT_CACHE_METADATA } else { 0 };
        let old = version.split(|ch: char| !ch.is_ascii_digit()).take(3).filter_map(|x| x.parse::<u32>().ok()).collect::<Vec<_>>() < vec![5, 5, 3];
        let charset = if old { 33 } else { UTF8MB4_GENERAL_CI };
        let encrypted = tls_cfg.is_some();
        if let Some(tc) = tls_cfg {
            if c.r.pos < c.r.data.len() {
                // Bytes after the greeting did not come through TLS: refuse
                // them rather than read them later as the server's.
                return Err(DbError { kind: ErrKind::Connect, code: "2026".into(), message: "the server sent unencrypted data before TLS started".into() });
            }
            // SSLRequest: the first 32 bytes of the handshake response;
            // the whole response follows inside TLS.
            c.response_head(client_caps, client_mariadb_caps, charset);
            let seq = c.seq;
            c.frame(seq);
            c.sock.send(&c.w).await.map_err(connect_io)?;
            tls::start(&mut c.sock, tc, host, mode).await?;
        }
        c.deprecate_eof = client_caps & CLIENT_DEPRECATE_EOF != 0;
        c.cache_meta = client_mariadb_caps & MARIADB_CLIENT_CACHE_METADATA != 0;
        c.response_head(client_caps, client_mariadb_caps, charset);
        c.w.extend_from_slice(t.user.as_bytes());
        c.w.push(0);
        c.w.push(auth.len() as u8);
        c.w.extend_from_slice(&auth);
        if client_caps & CLIENT_CONNECT_WITH_DB != 0 {
            c.w.extend_from_slice(t.database.as_bytes());
            c.w.push(0);
        }
        if client_caps & CLIENT_PLUGIN_AUTH != 0 {
            c.w.extend_from_slice(&plugin);
            c.w.push(0);
        }
        let seq = c.seq;
        c.frame(seq);
        c.sock.send(&c.w).await.map_err(connect_io)?;
        loop {
            let p = c.next().await.map_err(connect_io)?;
            let body = c.payload(p).to_vec();
            let reply: Vec<u8> = match body.first() {
                Some(0x00) => break,
                Some(0xff) => {
                    let mut e = server_error(&body);
                    e.kind = ErrKind::Connect;
                    return Err(e);
                }
                Some(0xfe) if body.len() > 1 => {
                    // Auth switch: another plugin, a new nonce.
                    let end = body[1..].iter().position(|&b| b == 0).map(|x| x + 1).unwrap_or(body.len());
                    plugin = body[1..end].to_vec();
                    let n = &body[(end + 1).min(body.len())..];
                    let n = n.strip_suffix(&[0]).unwrap_or(n);
                    match scramble(&plugin, n, pass) {
                        Some(a) => a,
                        None => return Ok(Choice::Fallback),
                    }
                }
                Some(0x01) if plugin == b"caching_sha2_password" && body.get(1) == Some(&3) => continue, // fast auth: OK follows
                Some(0x01) if plugin == b"caching_sha2_password" && body.get(1) == Some(&4) => {
                    // Full authentication needs TLS or RSA on TCP (the
                    // driver does both); TLS or a unix socket may carry
                    // the password in clear.
                    if t.socket.is_none() && !encrypted {
                        return Ok(Choice::Fallback);
                    }
                    let mut a = pass.to_vec();
                    a.push(0);
                    a
                }
                _ => return Ok(Choice::Fallback),
            };
            c.w.clear();
            c.w.extend_from_slice(&[0; 4]);
            c.w.extend_from_slice(&reply);
            let seq = c.seq;
            c.frame(seq);
            c.sock.send(&c.w).await.map_err(connect_io)?;
        }
        Ok(Choice::Fast(c))
    }

    /// The fixed 32 bytes that open a handshake response (after the 4-byte
    /// packet header): capabilities, max packet size, charset, filler and
    /// MariaDB's capabilities. An SSLRequest is these alone; the full
    /// response follows inside TLS.
    fn response_head(&mut self, caps: u32, mariadb_caps: u32, charset: u8) {
        self.w.clear();
        self.w.extend_from_slice(&[0; 4]);
        self.w.extend_from_slice(&caps.to_le_bytes());
        self.w.extend_from_slice(&(16u32 << 20).to_le_bytes());
        self.w.push(charset);
        self.w.extend_from_slice(&[0; 19]);
        self.w.extend_from_slice(&mariadb_caps.to_le_bytes());
    }
}

fn scramble(plugin: &[u8], nonce: &[u8], pass: &[u8]) -> Option<Vec<u8>> {
    if pass.is_empty() {
        return Some(Vec::new());
    }
    match plugin {
        b"mysql_native_password" => mysql_common::scramble::scramble_native(nonce, pass).map(|s| s.to_vec()),
        b"caching_sha2_password" => mysql_common::scramble::scramble_sha256(nonce, pass).map(|s| s.to_vec()),
        _ => None,
    }
}
