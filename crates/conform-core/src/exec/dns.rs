//! The DNS responder of a run's namespace: every name is there, at an address
//! that (like every address inside) is the namespace's own, so a tool's lookup
//! succeeds and its connection meets the black hole instead of failing at once.
//!
//! Queries come over UDP to port 53 of whatever server `/etc/resolv.conf` names:
//! inside the namespace that address is local too. Only the answer is built here;
//! the socket is polled by the run's reactor with the black hole's listeners.

use std::net::{Ipv4Addr, Ipv6Addr};

/// What an `A` question is answered with.
pub(crate) const ANSWER_V4: Ipv4Addr = Ipv4Addr::LOCALHOST;
/// What an `AAAA` question is answered with.
pub(crate) const ANSWER_V6: Ipv6Addr = Ipv6Addr::LOCALHOST;

const TYPE_A: u16 = 1;
const TYPE_AAAA: u16 = 28;
const HEADER: usize = 12;

/// The answer to one query: the question echoed, and for `A` or `AAAA` one record
/// (other types: no record, no error). `None` for what is not a single standard
/// query: it is left unanswered.
pub(crate) fn answer(query: &[u8]) -> Option<Vec<u8>> {
    let header = query.get(..HEADER)?;
    let flags = u16::from_be_bytes([*header.get(2)?, *header.get(3)?]);
    let is_query = flags & 0x8000 == 0;
    let opcode = (flags >> 11) & 0xf;
    let questions = u16::from_be_bytes([*header.get(4)?, *header.get(5)?]);
    if !is_query || opcode != 0 || questions != 1 {
        return None;
    }
    // The question: labels up to the root, then type and class. No compression
    // pointers are allowed in a query's only question.
    let mut at = HEADER;
    loop {
        let length = usize::from(*query.get(at)?);
        if length == 0 {
            at += 1;
            break;
        }
        if length & 0xc0 != 0 {
            return None;
        }
        at += 1 + length;
    }
    let question = query.get(HEADER..at + 4)?;
    let kind = u16::from_be_bytes([*query.get(at)?, *query.get(at + 1)?]);
    let data: &[u8] = match kind {
        TYPE_A => &ANSWER_V4.octets(),
        TYPE_AAAA => &ANSWER_V6.octets(),
        _ => &[],
    };
    let mut reply = Vec::with_capacity(question.len() + 40);
    reply.extend_from_slice(header.get(..2)?); // the query's id
                                               // A response, authoritative, recursion as asked and available, no error.
    let recursion = flags & 0x0100;
    reply.extend_from_slice(&(0x8480 | recursion).to_be_bytes());
    reply.extend_from_slice(&1u16.to_be_bytes());
    reply.extend_from_slice(&u16::from(!data.is_empty()).to_be_bytes());
    reply.extend_from_slice(&[0, 0, 0, 0]); // no authority, no additional
    reply.extend_from_slice(question);
    if !data.is_empty() {
        reply.extend_from_slice(&[0xc0, HEADER as u8]); // the question's name
        reply.extend_from_slice(&kind.to_be_bytes());
        reply.extend_from_slice(&1u16.to_be_bytes()); // class IN
        reply.extend_from_slice(&1u32.to_be_bytes()); // TTL: a second
        reply.extend_from_slice(&(data.len() as u16).to_be_bytes());
        reply.extend_from_slice(data);
    }
    Some(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(id: u16, name: &str, kind: u16) -> Vec<u8> {
        let mut bytes = id.to_be_bytes().to_vec();
        bytes.extend_from_slice(&[0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
        for label in name.split('.') {
            bytes.push(label.len() as u8);
            bytes.extend_from_slice(label.as_bytes());
        }
        bytes.push(0);
        bytes.extend_from_slice(&kind.to_be_bytes());
        bytes.extend_from_slice(&1u16.to_be_bytes());
        bytes
    }

    #[test]
    fn an_a_question_is_answered_with_a_local_address_and_its_id() {
        let asked = query(0xbeef, "api.nodefetch.example", TYPE_A);
        let reply = answer(&asked).expect("answered");
        assert_eq!(&reply[..2], &[0xbe, 0xef]);
        assert_eq!(reply[2] & 0x80, 0x80, "a response");
        assert_eq!(reply[3] & 0x0f, 0, "no error");
        assert_eq!(&reply[4..8], &[0, 1, 0, 1], "one question, one answer");
        assert_eq!(&reply[12..asked.len()], &asked[12..], "the question echoed");
        assert_eq!(&reply[reply.len() - 4..], &[127, 0, 0, 1]);
        assert_eq!(&reply[reply.len() - 6..reply.len() - 4], &[0, 4]);
    }

    #[test]
    fn aaaa_gets_the_loopback_and_other_types_no_record() {
        let reply = answer(&query(1, "example.com", TYPE_AAAA)).expect("answered");
        assert_eq!(&reply[reply.len() - 16..], &ANSWER_V6.octets());
        let mx = answer(&query(2, "example.com", 15)).expect("answered");
        assert_eq!(&mx[6..8], &[0, 0], "no answer record");
    }

    #[test]
    fn what_is_not_one_plain_query_is_left_unanswered() {
        let asked = query(3, "example.com", TYPE_A);
        for cut in 0..asked.len() {
            assert_eq!(answer(&asked[..cut]), None, "{cut}");
        }
        let mut response = asked.clone();
        response[2] |= 0x80;
        assert_eq!(answer(&response), None);
        let mut pointer = asked;
        pointer[12] = 0xc0;
        assert_eq!(answer(&pointer), None);
    }
}
