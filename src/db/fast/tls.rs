//! TLS for the lean clients: rustls for the handshake, our own record layer
//! after it.
//!
//! rustls' buffered and unbuffered connections both hand received plaintext
//! over in a fresh `Vec` per record, and the buffered one also queues each
//! outgoing record in one: heap traffic on every statement. So rustls only
//! negotiates (certificates, key exchange, the modes' verification rules)
//! and then gives up the traffic keys through its kernel-connection API;
//! from there each statement is sealed into one reused buffer and each reply
//! opened in place in another, with ring's AEADs: one `send` and one `recv`
//! per statement as without TLS. rustls keeps what a session needs later:
//! new receive keys when the server asks for a key update, new send keys
//! when we rotate ours before the cipher's record limit.

use super::Sock;
use crate::db::{DbError, ErrKind, SslMode, Target};
use ring::aead;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{ClientConnectionData, UnbufferedClientConnection, WebPkiServerVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, WebPkiSupportedAlgorithms};
use rustls::kernel::KernelConnection;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::unbuffered::{ConnectionState, EncodeError};
use rustls::{CertificateError, ConnectionTrafficSecrets, DigitallySignedStruct, ProtocolVersion, RootCertStore, SignatureScheme};
use std::io;
use std::sync::Arc;

/// Largest plaintext in one record (RFC 8446 5.1).
const MAX_FRAGMENT: usize = 16 * 1024;
/// Largest record on the wire we accept: plaintext, content type, padding
/// and tag may add at most 256 bytes (RFC 8446 5.2); TLS 1.2 allows 2048.
const MAX_RECORD: usize = MAX_FRAGMENT + 2048;
const HEADER: usize = 5;
const TAG: usize = 16;
/// Explicit nonce carried in each TLS 1.2 AES-GCM record.
const GCM12_NONCE: usize = 8;

const CHANGE_CIPHER_SPEC: u8 = 20;
const ALERT: u8 = 21;
const HANDSHAKE: u8 = 22;
const APPLICATION_DATA: u8 = 23;
const KEY_UPDATE: u8 = 24;

/// Whether `mode` asks for TLS at all.
pub fn wanted(mode: SslMode) -> bool {
    mode != SslMode::Disabled
}

fn setup_err(message: String) -> DbError {
    DbError { kind: ErrKind::Connect, code: String::new(), message }
}

/// The rustls configuration for `t`'s ssl mode, with the driver path's
/// rules: PREFERRED and REQUIRED encrypt without checking the certificate;
/// VERIFY_CA checks the chain against `ssl-ca` (the system's CAs without
/// it); VERIFY_IDENTITY also the host name.
pub fn config(t: &Target) -> Result<Arc<rustls::ClientConfig>, DbError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let algs = provider.signature_verification_algorithms;
    let verifier: Arc<dyn ServerCertVerifier> = match t.ssl_mode {
        SslMode::VerifyCa | SslMode::VerifyIdentity => {
            let roots = Arc::new(roots(t.ssl_ca.as_deref())?);
            let webpki = WebPkiServerVerifier::builder_with_provider(roots, provider.clone()).build().map_err(|e| setup_err(format!("TLS setup: {e}")))?;
            Arc::new(Verify { webpki, check_name: t.ssl_mode == SslMode::VerifyIdentity })
        }
        _ => Arc::new(Encrypt { algs }),
    };
    let mut cfg = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| setup_err(format!("TLS setup: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    // The record layer below takes the keys over after the handshake.
    cfg.enable_secret_extraction = true;
    // Every connection does a full handshake, as with the drivers.
    cfg.resumption = rustls::client::Resumption::disabled();
    Ok(Arc::new(cfg))
}

/// The CAs to trust: the `ssl-ca` file, or the system's.
pub(crate) fn roots(ca: Option<&str>) -> Result<RootCertStore, DbError> {
    let mut store = RootCertStore::empty();
    match ca {
        Some(path) => {
            let pem = std::fs::read(path).map_err(|e| setup_err(format!("cannot read ssl-ca {path}: {e}")))?;
            let mut n = 0;
            for cert in CertificateDer::pem_slice_iter(&pem) {
                let cert = cert.map_err(|e| setup_err(format!("bad ssl-ca {path}: {e}")))?;
                store.add(cert).map_err(|e| setup_err(format!("bad ssl-ca {path}: {e}")))?;
                n += 1;
            }
            if n == 0 {
                return Err(setup_err(format!("bad ssl-ca {path}: no PEM certificate in it")));
            }
        }
        None => {
            // Unreadable entries are skipped, as OpenSSL skips them; none
            // at all makes every certificate fail, which says why.
            let found = rustls_native_certs::load_native_certs();
            store.add_parsable_certificates(found.certs);
        }
    }
    Ok(store)
}

/// PREFERRED / REQUIRED: any certificate, but a handshake that proves the
/// server holds its key (so the session keys are its and ours).
#[derive(Debug)]
struct Encrypt {
    algs: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Encrypt {
    fn verify_server_cert(&self, _: &CertificateDer<'_>, _: &[CertificateDer<'_>], _: &ServerName<'_>, _: &[u8], _: UnixTime) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(&self, m: &[u8], cert: &CertificateDer<'_>, dss: &DigitallySignedStruct) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(m, cert, dss, &self.algs)
    }
    fn verify_tls13_signature(&self, m: &[u8], cert: &CertificateDer<'_>, dss: &DigitallySignedStruct) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(m, cert, dss, &self.algs)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algs.supported_schemes()
    }
}

/// VERIFY_CA / VERIFY_IDENTITY: the chain must lead to a trusted CA; the
/// host name is checked only for VERIFY_IDENTITY.
#[derive(Debug)]
struct Verify {
    webpki: Arc<WebPkiServerVerifier>,
    check_name: bool,
}

impl ServerCertVerifier for Verify {
    fn verify_server_cert(&self, end: &CertificateDer<'_>, chain: &[CertificateDer<'_>], name: &ServerName<'_>, ocsp: &[u8], now: UnixTime) -> Result<ServerCertVerified, rustls::Error> {
        match self.webpki.verify_server_cert(end, chain, name, ocsp, now) {
            Err(rustls::Error::InvalidCertificate(CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. })) if !self.check_name => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }
    fn verify_tls12_signature(&self, m: &[u8], cert: &CertificateDer<'_>, dss: &DigitallySignedStruct) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls12_signature(m, cert, dss)
    }
    fn verify_tls13_signature(&self, m: &[u8], cert: &CertificateDer<'_>, dss: &DigitallySignedStruct) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls13_signature(m, cert, dss)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.webpki.supported_verify_schemes()
    }
}

/// A handshake failure in the words users know from OpenSSL's clients.
fn handshake_error(e: &rustls::Error, host: &str) -> DbError {
    let why = match e {
        rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer) => {
            "certificate verify failed: unable to get local issuer certificate (the certificate is not signed by a CA in ssl-ca, or by a system CA without it)".to_string()
        }
        rustls::Error::InvalidCertificate(CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. }) => {
            format!("certificate verify failed: host name mismatch: the certificate is not valid for {host}")
        }
        rustls::Error::InvalidCertificate(CertificateError::Expired | CertificateError::ExpiredContext { .. }) => "certificate verify failed: certificate has expired".to_string(),
        rustls::Error::InvalidCertificate(c) => format!("certificate verify failed: {c:?}"),
        other => other.to_string(),
    };
    setup_err(format!("TLS handshake failed: {why}"))
}

/// The name the certificate must carry: an IP address or a DNS name. A
/// host written some other way (`127.1`) can match no certificate: under
/// VERIFY_IDENTITY that is a mismatch; the other modes do not check the
/// name and use the address connected to (which sends no SNI either).
fn server_name(sock: &Sock, host: &str, check_name: bool) -> Result<ServerName<'static>, DbError> {
    if let Ok(n) = ServerName::try_from(host.to_string()) {
        return Ok(n);
    }
    match sock.peer_ip() {
        Some(ip) if !check_name => Ok(ServerName::IpAddress(ip.into())),
        _ => Err(setup_err(format!("TLS handshake failed: certificate verify failed: host name mismatch: '{host}' is not a name a certificate can be valid for"))),
    }
}

/// Runs the TLS handshake on `sock` (whose protocol just agreed to switch)
/// and turns it into an encrypted socket.
pub async fn start(sock: &mut Sock, cfg: Arc<rustls::ClientConfig>, host: &str, mode: SslMode) -> Result<(), DbError> {
    let io_err = |e: io::Error| setup_err(format!("TLS handshake failed: {e}"));
    let name = server_name(sock, host, mode == SslMode::VerifyIdentity)?;
    let mut conn = UnbufferedClientConnection::new(cfg, name).map_err(|e| handshake_error(&e, host))?;
    let mut incoming: Vec<u8> = Vec::with_capacity(MAX_RECORD * 2);
    let mut outgoing: Vec<u8> = vec![0; 4096];
    let mut out_len = 0;
    loop {
        enum Next {
            Recv,
            Again,
            Done,
        }
        let status = conn.process_tls_records(&mut incoming);
        let discard = status.discard;
        let next = match status.state.map_err(|e| handshake_error(&e, host))? {
            ConnectionState::EncodeTlsData(mut st) => loop {
                match st.encode(&mut outgoing[out_len..]) {
                    Ok(n) => {
                        out_len += n;
                        break Next::Again;
                    }
                    Err(EncodeError::InsufficientSize(s)) => outgoing.resize(out_len + s.required_size, 0),
                    Err(e) => return Err(setup_err(format!("TLS handshake failed: {e}"))),
                }
            },
            ConnectionState::TransmitTlsData(st) => {
                sock.send_plain(&outgoing[..out_len]).await.map_err(io_err)?;
                out_len = 0;
                st.done();
                Next::Again
            }
            ConnectionState::BlockedHandshake => Next::Recv,
            ConnectionState::WriteTraffic(_) => Next::Done,
            ConnectionState::PeerClosed | ConnectionState::Closed => return Err(setup_err("TLS handshake failed: the server closed the session".into())),
            _ => return Err(setup_err("TLS handshake failed: the server sent data before the handshake ended".into())),
        };
        incoming.drain(..discard);
        match next {
            Next::Again => {}
            Next::Recv => {
                if incoming.capacity() - incoming.len() < MAX_RECORD {
                    incoming.reserve(MAX_RECORD);
                }
                if sock.recv_plain(&mut incoming).await.map_err(io_err)? == 0 {
                    return Err(setup_err("TLS handshake failed: the server closed the connection".into()));
                }
            }
            Next::Done => break,
        }
    }
    let (secrets, kernel) = conn.dangerous_into_kernel_connection().map_err(|e| setup_err(format!("TLS setup: {e}")))?;
    let tls13 = kernel.protocol_version() == ProtocolVersion::TLSv1_3;
    let tx = Keys::new(secrets.tx, tls13).ok_or_else(|| setup_err("TLS setup: the negotiated cipher is not one the client can use".into()))?;
    let rx = Keys::new(secrets.rx, tls13).ok_or_else(|| setup_err("TLS setup: the negotiated cipher is not one the client can use".into()))?;
    let limit = match kernel.negotiated_cipher_suite() {
        rustls::SupportedCipherSuite::Tls13(s) => s.common.confidentiality_limit,
        rustls::SupportedCipherSuite::Tls12(s) => s.common.confidentiality_limit,
    }
    .min(record_limit_override());
    // Whatever came after the handshake (TLS 1.3 session tickets, say) is
    // the record layer's to read.
    let mut cin = Vec::with_capacity(MAX_RECORD * 2);
    cin.extend_from_slice(&incoming);
    sock.tls = Some(Box::new(Tls { kernel, tls13, tx, rx, limit, rotate: false, cin, cpos: 0, out: Vec::with_capacity(4096), closed: false }));
    Ok(())
}

/// `FAIRBENCH_TLS_RECORD_LIMIT`: a lower record limit than the cipher's, so
/// that a test reaches it in seconds (TLS 1.3 then updates its keys, TLS 1.2
/// renews its session) rather than after 16.7 million records.
fn record_limit_override() -> u64 {
    std::env::var("FAIRBENCH_TLS_RECORD_LIMIT").ok().and_then(|v| v.parse().ok()).filter(|v| *v > 0).unwrap_or(u64::MAX)
}

/// Records sent before the limit at which a key is rotated (TLS 1.3) or a
/// TLS 1.2 session is renewed: well before it, so that no statement can
/// reach the limit itself.
fn margin(limit: u64) -> u64 {
    (1 << 16).min(limit / 2)
}

/// One direction's key, fixed IV and record sequence number.
struct Keys {
    key: aead::LessSafeKey,
    iv: [u8; 12],
    seq: u64,
    /// TLS 1.2 AES-GCM: part of each nonce travels in the record.
    gcm12: bool,
}

impl Keys {
    fn new((seq, secrets): (u64, ConnectionTrafficSecrets), tls13: bool) -> Option<Keys> {
        let (alg, key, iv, gcm) = match secrets {
            ConnectionTrafficSecrets::Aes128Gcm { key, iv } => (&aead::AES_128_GCM, key, iv, true),
            ConnectionTrafficSecrets::Aes256Gcm { key, iv } => (&aead::AES_256_GCM, key, iv, true),
            ConnectionTrafficSecrets::Chacha20Poly1305 { key, iv } => (&aead::CHACHA20_POLY1305, key, iv, false),
            _ => return None,
        };
        let key = aead::LessSafeKey::new(aead::UnboundKey::new(alg, key.as_ref()).ok()?);
        Some(Keys { key, iv: iv.as_ref().try_into().ok()?, seq, gcm12: gcm && !tls13 })
    }

    /// The per-record nonce: the IV xor the sequence number (RFC 8446 5.3;
    /// rustls builds TLS 1.2 GCM nonces the same way).
    fn nonce(&self) -> [u8; 12] {
        let mut n = self.iv;
        for (b, s) in n[4..].iter_mut().zip(self.seq.to_be_bytes()) {
            *b ^= s;
        }
        n
    }
}

/// The TLS 1.2 additional data: sequence number, type, version, length.
fn aad12(seq: u64, ty: u8, len: usize) -> [u8; 13] {
    let mut a = [0u8; 13];
    a[..8].copy_from_slice(&seq.to_be_bytes());
    a[8] = ty;
    a[9] = 3;
    a[10] = 3;
    a[11..].copy_from_slice(&(len as u16).to_be_bytes());
    a
}

fn bad_record(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("TLS: {what}"))
}

/// An established session's record layer.
pub struct Tls {
    kernel: KernelConnection<ClientConnectionData>,
    tls13: bool,
    tx: Keys,
    rx: Keys,
    /// Records one send key may protect (the cipher's confidentiality limit).
    limit: u64,
    /// The server asked us for a key update: rotate before the next send.
    rotate: bool,
    /// Ciphertext received; records start at `cpos`.
    cin: Vec<u8>,
    cpos: usize,
    /// The records of the statement being sent.
    out: Vec<u8>,
    /// The server sent close_notify.
    closed: bool,
}

impl Tls {
    /// Seal `plain` into `out` as application-data records.
    pub fn seal(&mut self, plain: &[u8]) -> io::Result<&[u8]> {
        self.out.clear();
        for chunk in plain.chunks(MAX_FRAGMENT) {
            // Well before the limit, so a long run never reaches it (a
            // TLS 1.2 session is renewed by its client before this: see
            // `spent`; past it, the statement fails rather than reuse a key).
            let at = if self.tls13 { self.limit - margin(self.limit) } else { self.limit };
            if self.rotate || self.tx.seq >= at {
                self.update_tx()?;
            }
            self.seal_record(APPLICATION_DATA, chunk)?;
        }
        Ok(&self.out)
    }

    /// Appends one record of type `ty` carrying `plain` to `out`.
    fn seal_record(&mut self, ty: u8, plain: &[u8]) -> io::Result<()> {
        let k = &mut self.tx;
        let start = self.out.len();
        let explicit = if k.gcm12 { GCM12_NONCE } else { 0 };
        let inner = usize::from(self.tls13);
        let len = explicit + plain.len() + inner + TAG;
        let outer = if self.tls13 { APPLICATION_DATA } else { ty };
        self.out.extend_from_slice(&[outer, 3, 3]);
        self.out.extend_from_slice(&(len as u16).to_be_bytes());
        let nonce = k.nonce();
        if k.gcm12 {
            self.out.extend_from_slice(&nonce[4..]);
        }
        let body = self.out.len();
        self.out.extend_from_slice(plain);
        if self.tls13 {
            self.out.push(ty);
        }
        let mut header = [0u8; 13];
        let aad = if self.tls13 {
            header[..HEADER].copy_from_slice(&self.out[start..start + HEADER]);
            &header[..HEADER]
        } else {
            header = aad12(k.seq, ty, plain.len());
            &header[..]
        };
        let tag = k.key.seal_in_place_separate_tag(aead::Nonce::assume_unique_for_key(nonce), aead::Aad::from(aad), &mut self.out[body..]).map_err(|_| bad_record("encryption failed"))?;
        self.out.extend_from_slice(tag.as_ref());
        k.seq += 1;
        Ok(())
    }

    /// A TLS 1.2 session whose send key is near its cipher's record limit:
    /// TLS 1.2 has no key update, so the client must open a new session
    /// (a new connection) between statements.
    pub fn spent(&self) -> bool {
        !self.tls13 && self.tx.seq >= self.limit - margin(self.limit)
    }

    /// TLS 1.3 KeyUpdate: tell the server, then switch to the next send key.
    fn update_tx(&mut self) -> io::Result<()> {
        if !self.tls13 {
            return Err(bad_record("the TLS 1.2 session reached its cipher's record limit within one statement"));
        }
        self.seal_record(HANDSHAKE, &[KEY_UPDATE, 0, 0, 1, 0])?;
        let next = self.kernel.update_tx_secret().map_err(|e| bad_record(&e.to_string()))?;
        self.tx = Keys::new(next, true).ok_or_else(|| bad_record("key update"))?;
        self.rotate = false;
        Ok(())
    }

    /// Where the next ciphertext goes: spare room for at least one record.
    pub fn cipher_room(&mut self) -> &mut Vec<u8> {
        if self.cpos > 0 && self.cpos == self.cin.len() {
            self.cin.clear();
            self.cpos = 0;
        } else if self.cin.capacity() - self.cin.len() < MAX_RECORD && self.cpos > 0 {
            self.cin.drain(..self.cpos);
            self.cpos = 0;
        }
        if self.cin.capacity() - self.cin.len() < MAX_RECORD {
            self.cin.reserve(MAX_RECORD);
        }
        &mut self.cin
    }

    pub fn closed(&self) -> bool {
        self.closed
    }

    /// Opens every complete record received, appending application data
    /// to `plain`; returns how many bytes that was.
    pub fn open(&mut self, plain: &mut Vec<u8>) -> io::Result<usize> {
        let before = plain.len();
        while self.cin.len() - self.cpos >= HEADER && !self.closed {
            let p = self.cpos;
            let h = &self.cin[p..p + HEADER];
            let (ty, len) = (h[0], u16::from_be_bytes([h[3], h[4]]) as usize);
            if len > MAX_RECORD {
                return Err(bad_record("record too long"));
            }
            if self.cin.len() - p < HEADER + len {
                break;
            }
            self.cpos = p + HEADER + len;
            if ty == CHANGE_CIPHER_SPEC && self.tls13 {
                continue; // middlebox compatibility, never encrypted
            }
            let (ty, range) = self.open_record(p, ty, len)?;
            match ty {
                APPLICATION_DATA => plain.extend_from_slice(&self.cin[range]),
                HANDSHAKE => self.post_handshake(range)?,
                ALERT => match &self.cin[range] {
                    [_, 0, ..] => self.closed = true,
                    [_, code, ..] => return Err(io::Error::new(io::ErrorKind::ConnectionAborted, format!("TLS alert {code} from the server"))),
                    _ => return Err(bad_record("short alert")),
                },
                _ => return Err(bad_record("unexpected record type")),
            }
        }
        Ok(plain.len() - before)
    }

    /// Decrypts the record at `cin[p..]` in place: its real content type
    /// and where its plaintext is.
    fn open_record(&mut self, p: usize, ty: u8, len: usize) -> io::Result<(u8, std::ops::Range<usize>)> {
        let k = &mut self.rx;
        let mut header = [0u8; 13];
        header[..HEADER].copy_from_slice(&self.cin[p..p + HEADER]);
        let body = p + HEADER;
        let nonce = if k.gcm12 {
            let mut n = k.iv;
            n[4..].copy_from_slice(self.cin.get(body..body + GCM12_NONCE).ok_or_else(|| bad_record("short record"))?);
            n
        } else {
            k.nonce()
        };
        let skip = if k.gcm12 { GCM12_NONCE } else { 0 };
        if len < skip + TAG {
            return Err(bad_record("short record"));
        }
        let aad = if self.tls13 {
            &header[..HEADER]
        } else {
            header = aad12(k.seq, ty, len - skip - TAG);
            &header[..]
        };
        let n =
            k.key.open_within(aead::Nonce::assume_unique_for_key(nonce), aead::Aad::from(aad), &mut self.cin[body..body + len], skip..).map_err(|_| bad_record("a record failed to decrypt"))?.len();
        k.seq += 1;
        if !self.tls13 {
            return Ok((ty, body..body + n));
        }
        // TLS 1.3: the real type is the last non-zero byte (zeros are padding).
        let inner = &self.cin[body..body + n];
        let end = inner.iter().rposition(|&b| b != 0).ok_or_else(|| bad_record("record without a content type"))?;
        Ok((inner[end], body..body + end))
    }

    /// Handshake messages after the handshake, at `cin[range]`:
    /// TLS 1.3 session tickets (not used: every connection handshakes in
    /// full) and key updates; TLS 1.2 renegotiation requests are ignored,
    /// which the protocol allows.
    fn post_handshake(&mut self, range: std::ops::Range<usize>) -> io::Result<()> {
        if !self.tls13 {
            return Ok(());
        }
        let (mut i, end) = (range.start, range.end);
        while i + 4 <= end {
            let ty = self.cin[i];
            let n = u32::from_be_bytes([0, self.cin[i + 1], self.cin[i + 2], self.cin[i + 3]]) as usize;
            if ty == KEY_UPDATE {
                let requested = self.cin.get(i + 4).copied() == Some(1);
                let next = self.kernel.update_rx_secret().map_err(|e| bad_record(&e.to_string()))?;
                self.rx = Keys::new(next, true).ok_or_else(|| bad_record("key update"))?;
                if requested {
                    self.rotate = true;
                }
            }
            i += 4 + n;
        }
        Ok(())
    }
}

/// Whether an error from the lean client's handshake is the TLS setup
/// failing (so PREFERRED may try again without it).
pub fn is_tls_failure(e: &DbError) -> bool {
    e.kind == ErrKind::Connect && (e.message.starts_with("TLS handshake failed") || e.message.starts_with("TLS setup"))
}
