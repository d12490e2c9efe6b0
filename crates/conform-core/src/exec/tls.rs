//! The server name a TLS client asks for, read from its ClientHello: what a
//! connection to the black hole's 443 says of the host it meant to reach.
//!
//! Only as much of TLS as that needs: one handshake record, the ClientHello in it,
//! and its `server_name` extension. Anything else, or anything cut short, is
//! `None`; the bytes come from a tool and are never trusted.

/// The first byte of a TLS handshake record.
pub(crate) const HANDSHAKE: u8 = 0x16;

/// Whether `head` holds the whole first TLS record (or all of it that will be read,
/// `limit` bytes): nothing more is needed to read the server name.
pub(crate) fn record_complete(head: &[u8], limit: usize) -> bool {
    match head.get(3..5) {
        Some(&[high, low]) => {
            head.len() >= (5 + usize::from(u16::from_be_bytes([high, low]))).min(limit)
        }
        _ => false,
    }
}

/// The SNI host name of a ClientHello record, lowercased.
pub(crate) fn server_name(head: &[u8]) -> Option<String> {
    let mut record = Reader::new(head);
    if record.u8()? != HANDSHAKE {
        return None;
    }
    record.skip(2)?; // record version
    let length = usize::from(record.u16()?);
    // A ClientHello cut short by the read limit may still hold the name.
    let mut handshake = Reader::new(record.rest().get(..length).unwrap_or(record.rest()));
    if handshake.u8()? != 1 {
        return None; // not a ClientHello
    }
    handshake.skip(3)?; // handshake length
    handshake.skip(2 + 32)?; // client version, random
    let session = usize::from(handshake.u8()?);
    handshake.skip(session)?;
    let suites = usize::from(handshake.u16()?);
    handshake.skip(suites)?;
    let compressions = usize::from(handshake.u8()?);
    handshake.skip(compressions)?;
    let extensions_length = usize::from(handshake.u16()?);
    let mut extensions = handshake.take(extensions_length.min(handshake.rest().len()))?;
    while let (Some(kind), Some(length)) = (extensions.u16(), extensions.u16()) {
        let mut body = extensions.take(usize::from(length))?;
        if kind != 0 {
            continue;
        }
        // server_name: a list of (type, name); type 0 is a host name.
        let list = usize::from(body.u16()?);
        let mut names = body.take(list)?;
        while let Some(name_type) = names.u8() {
            let length = usize::from(names.u16()?);
            let name = names.take(length)?;
            if name_type == 0 {
                let name = std::str::from_utf8(name.rest()).ok()?;
                return Some(name.to_ascii_lowercase()).filter(|name| !name.is_empty());
            }
        }
        return None;
    }
    None
}

/// Reads big-endian fields off a byte slice, `None` past its end.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }

    fn rest(&self) -> &'a [u8] {
        self.bytes
    }

    fn take(&mut self, n: usize) -> Option<Reader<'a>> {
        let (taken, rest) = (self.bytes.get(..n)?, self.bytes.get(n..)?);
        self.bytes = rest;
        Some(Reader::new(taken))
    }

    fn skip(&mut self, n: usize) -> Option<()> {
        self.take(n).map(|_| ())
    }

    fn u8(&mut self) -> Option<u8> {
        let (&first, rest) = self.bytes.split_first()?;
        self.bytes = rest;
        Some(first)
    }

    fn u16(&mut self) -> Option<u16> {
        let high = self.u8()?;
        let low = self.u8()?;
        Some(u16::from_be_bytes([high, low]))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A minimal ClientHello record naming `host`, as a client sends it.
    pub(crate) fn client_hello(host: &str) -> Vec<u8> {
        let name = host.as_bytes();
        let mut sni = Vec::new();
        let list_length = (3 + name.len()) as u16;
        sni.extend_from_slice(&list_length.to_be_bytes());
        sni.push(0);
        sni.extend_from_slice(&(name.len() as u16).to_be_bytes());
        sni.extend_from_slice(name);
        let mut extensions = Vec::new();
        // An extension before it (supported_groups), as real clients send.
        extensions.extend_from_slice(&[0x00, 0x0a, 0x00, 0x04, 0x00, 0x02, 0x00, 0x1d]);
        extensions.extend_from_slice(&[0x00, 0x00]);
        extensions.extend_from_slice(&(sni.len() as u16).to_be_bytes());
        extensions.extend_from_slice(&sni);
        let mut body = vec![0x03, 0x03];
        body.extend_from_slice(&[7u8; 32]);
        body.push(32);
        body.extend_from_slice(&[9u8; 32]);
        body.extend_from_slice(&[0x00, 0x02, 0x13, 0x01]);
        body.extend_from_slice(&[0x01, 0x00]);
        body.extend_from_slice(&(extensions.len() as u16).to_be_bytes());
        body.extend_from_slice(&extensions);
        let mut handshake = vec![1];
        handshake.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
        handshake.extend_from_slice(&body);
        let mut record = vec![HANDSHAKE, 0x03, 0x01];
        record.extend_from_slice(&(handshake.len() as u16).to_be_bytes());
        record.extend_from_slice(&handshake);
        record
    }

    #[test]
    fn the_server_name_is_read_from_a_client_hello() {
        let hello = client_hello("API.NodeFetch.example");
        assert!(record_complete(&hello, 8192));
        assert_eq!(
            server_name(&hello).as_deref(),
            Some("api.nodefetch.example")
        );
    }

    #[test]
    fn anything_short_or_foreign_names_nothing_and_never_panics() {
        let hello = client_hello("api.example");
        for cut in 0..hello.len() - 1 {
            let short = &hello[..cut];
            assert!(!record_complete(short, 8192), "{cut}");
            assert_eq!(server_name(short), None, "{cut}");
        }
        assert_eq!(server_name(b"GET / HTTP/1.1\r\n\r\n"), None);
        let mut not_hello = hello.clone();
        not_hello[5] = 2;
        assert_eq!(server_name(&not_hello), None);
        assert!(
            record_complete(&hello[..100], 100),
            "the read limit ends it"
        );
    }
}
