//! The packed form of a resolved profile: its JSON value, lexed once by build.rs.
//!
//! Reading the compiled-in profile as JSON text was most of a one-file `pwk lint`'s
//! own start-up cost: a string's every byte scanned for quotes and escapes, every
//! number parsed. build.rs writes each profile in this form instead, and
//! [`super::unpack`] hands its parts to the profile types' `Deserialize` as they
//! are (strings borrowed from the binary, lengths known before the parts). The
//! values and their order are the JSON's: a profile reads the same either way (a
//! test compares the two).
//!
//! The strings live in one text (each once, so the binary holds a cite every
//! version repeats once), which the compiler checks is UTF-8 when it includes it: a
//! string is its place there, and reading it checks nothing byte by byte. A value
//! is one tag byte and its payload, integers little-endian:
//!
//! | tag | value | payload |
//! |---|---|---|
//! | 0 | `null` | — |
//! | 1, 2 | `false`, `true` | — |
//! | 3 | an unsigned integer | 8 bytes |
//! | 4 | a negative integer | 8 bytes (two's complement) |
//! | 5 | any other number | 8 bytes (an `f64`'s bits) |
//! | 6 | a string | its start and end in the text (4 bytes each) |
//! | 7 | an array | the number of items (4 bytes), the items' size in bytes (4 bytes), then the items |
//! | 8 | an object | the number of members (4 bytes), the members' size in bytes (4 bytes), then each key (a string's start and end, no tag) and value |
//!
//! A container's size lets a reader step over it without reading its parts (a key
//! section or key fact, read on first use: [`super::Lazy`]).
//!
//! Shared by build.rs (which writes it) and the host tests.

pub(super) const NULL: u8 = 0;
pub(super) const FALSE: u8 = 1;
pub(super) const TRUE: u8 = 2;
pub(super) const UINT: u8 = 3;
pub(super) const INT: u8 = 4;
pub(super) const FLOAT: u8 = 5;
pub(super) const STR: u8 = 6;
pub(super) const ARRAY: u8 = 7;
pub(super) const OBJECT: u8 = 8;

/// What [`pack`] writes to: the values and the strings' text.
#[derive(Default)]
pub(super) struct Packer {
    pub bytes: Vec<u8>,
    pub text: String,
    /// Each string's place in `text`, so it is there once.
    places: std::collections::HashMap<String, (u32, u32)>,
}

/// Append `v`, packed, to `out` (build.rs, and pwk's `PWK_DEBUG_PROFILE_PATCH`).
pub(super) fn pack(v: &serde_json::Value, out: &mut Packer) {
    use serde_json::Value;
    match v {
        Value::Null => out.bytes.push(NULL),
        Value::Bool(false) => out.bytes.push(FALSE),
        Value::Bool(true) => out.bytes.push(TRUE),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                out.bytes.push(UINT);
                out.bytes.extend_from_slice(&u.to_le_bytes());
            } else if let Some(i) = n.as_i64() {
                out.bytes.push(INT);
                out.bytes.extend_from_slice(&i.to_le_bytes());
            } else {
                out.bytes.push(FLOAT);
                let f = n.as_f64().expect("a JSON number is an f64");
                out.bytes.extend_from_slice(&f.to_bits().to_le_bytes());
            }
        }
        Value::String(s) => {
            out.bytes.push(STR);
            pack_str(s, out);
        }
        Value::Array(items) => {
            out.bytes.push(ARRAY);
            pack_u32(items.len(), &mut out.bytes);
            let size = open(out);
            items.iter().for_each(|x| pack(x, out));
            close(out, size);
        }
        Value::Object(members) => {
            out.bytes.push(OBJECT);
            pack_u32(members.len(), &mut out.bytes);
            let size = open(out);
            for (k, x) in members {
                pack_str(k, out);
                pack(x, out);
            }
            close(out, size);
        }
    }
}

/// Leave room for a container's size; [`close`] writes it once its parts are.
fn open(out: &mut Packer) -> usize {
    out.bytes.extend_from_slice(&[0; 4]);
    out.bytes.len()
}

fn close(out: &mut Packer, parts_start: usize) {
    let size = u32::try_from(out.bytes.len() - parts_start).expect("shorter than 4 GiB");
    out.bytes[parts_start - 4..parts_start].copy_from_slice(&size.to_le_bytes());
}

fn pack_str(s: &str, out: &mut Packer) {
    let (start, end) = match out.places.get(s) {
        Some(&place) => place,
        None => {
            let start = out.text.len();
            out.text.push_str(s);
            let place = (start as u32, out.text.len() as u32);
            out.places.insert(s.to_string(), place);
            place
        }
    };
    pack_u32(start as usize, &mut out.bytes);
    pack_u32(end as usize, &mut out.bytes);
}

fn pack_u32(n: usize, out: &mut Vec<u8>) {
    let n = u32::try_from(n).expect("the profiles are shorter than 4 GiB");
    out.extend_from_slice(&n.to_le_bytes());
}
