//! Read a packed profile ([`super::packed`]) with the profile types' own
//! `Deserialize`, as `serde_json` reads their JSON: the same values, the same
//! enum and option forms, so either source gives the same profile.

use std::sync::OnceLock;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::packed::{ARRAY, FALSE, FLOAT, INT, NULL, OBJECT, STR, TRUE, UINT};

/// A packed value that does not read as the type asked for (or is cut short).
#[derive(Debug)]
pub(super) struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// `T` from the packed value `bytes` holds, all of it, its strings in `text`.
pub(super) fn from_packed<T: de::Deserialize<'static>>(
    bytes: &'static [u8],
    text: &'static str,
) -> Result<T, Error> {
    let mut u = Unpacker {
        bytes,
        text,
        pos: 0,
    };
    let value = T::deserialize(&mut u)?;
    if u.pos != bytes.len() {
        return Err(Error(format!(
            "{} bytes after the value",
            bytes.len() - u.pos
        )));
    }
    Ok(value)
}

struct Unpacker {
    bytes: &'static [u8],
    text: &'static str,
    pos: usize,
}

impl Unpacker {
    fn peek(&self) -> Result<u8, Error> {
        self.bytes
            .get(self.pos)
            .copied()
            .ok_or_else(|| Error("cut short".into()))
    }

    fn take(&mut self, n: usize) -> Result<&'static [u8], Error> {
        let bytes = self.bytes;
        let part = self
            .pos
            .checked_add(n)
            .and_then(|end| bytes.get(self.pos..end))
            .ok_or_else(|| Error("cut short".into()))?;
        self.pos += n;
        Ok(part)
    }

    fn tag(&mut self) -> Result<u8, Error> {
        let t = self.peek()?;
        self.pos += 1;
        Ok(t)
    }

    fn word(&mut self) -> Result<u64, Error> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    fn len(&mut self) -> Result<usize, Error> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
    }

    /// A container's count and the end of its parts (its tag read): the parts are
    /// then read, and must end there.
    fn container(&mut self) -> Result<(usize, usize), Error> {
        let count = self.len()?;
        let size = self.len()?;
        let end = self
            .pos
            .checked_add(size)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| Error("cut short".into()))?;
        Ok((count, end))
    }

    /// Where a container's parts ended, against where its size said they would.
    fn ended(&self, end: usize) -> Result<(), Error> {
        match self.pos == end {
            true => Ok(()),
            false => Err(Error(format!(
                "a container's parts end at {}, not at {end} as its size says",
                self.pos
            ))),
        }
    }

    /// The items of an array whose tag was read, all of them.
    fn items<'de, V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error>
    where
        'de: 'static,
    {
        let (left, end) = self.container()?;
        let mut items = Items { u: self, left };
        let v = visitor.visit_seq(&mut items)?;
        match items.left {
            0 => self.ended(end).map(|()| v),
            n => Err(Error(format!("{n} array items left unread"))),
        }
    }

    /// The members of an object whose tag was read, all of them.
    fn members<'de, V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error>
    where
        'de: 'static,
    {
        let (left, end) = self.container()?;
        let mut members = Members { u: self, left };
        let v = visitor.visit_map(&mut members)?;
        match members.left {
            0 => self.ended(end).map(|()| v),
            n => Err(Error(format!("{n} object members left unread"))),
        }
    }

    /// The error for a value of another form than `wanted` (one place, out of
    /// every type's reading).
    #[cold]
    #[inline(never)]
    fn unexpected(tag: u8, wanted: &str) -> Error {
        let found = match tag {
            NULL => "null",
            FALSE | TRUE => "a boolean",
            UINT | INT | FLOAT => "a number",
            STR => "a string",
            ARRAY => "an array",
            OBJECT => "an object",
            _ => return Error(format!("unknown tag {tag}")),
        };
        Error(format!("invalid type: {found}, expected {wanted}"))
    }

    /// A string: its place in the text (checked to be whole characters there).
    fn str(&mut self) -> Result<&'static str, Error> {
        let start = self.len()?;
        let end = self.len()?;
        let text = self.text;
        text.get(start..end)
            .ok_or_else(|| Error(format!("no string at {start}..{end}")))
    }

    /// Step over one value, building nothing: its extent is all a [`Lazy`]
    /// keeps. A container is stepped over by its size, its parts unread: the value
    /// is read whole when it is first used (every profile's every such value is, in
    /// the tests).
    fn skip(&mut self) -> Result<(), Error> {
        match self.tag()? {
            NULL | FALSE | TRUE => {}
            // A number's 8 bytes, or a string's start and end (4 bytes each).
            UINT | INT | FLOAT | STR => {
                self.take(8)?;
            }
            ARRAY | OBJECT => {
                let (_, end) = self.container()?;
                self.pos = end;
            }
            t => return Err(Error(format!("unknown tag {t}"))),
        }
        Ok(())
    }
}

/// The name [`Lazy`] asks a deserializer for: the [`Unpacker`] then hands it the
/// packed value's extent instead of the value; any other deserializer reads the
/// value.
const LAZY: &str = "$pwk::host::Lazy";

/// A part of a profile (a section, a key fact's schema), read from its packed form
/// on first use. A lint that finds a problem consults every pi host's every version,
/// and reading each row whole was most of that run's work, for rows of which one
/// check looks at one section: a row is now read as its top-level fields, each
/// section's extent kept, and a section is read when a check first looks at it.
/// From any deserializer but the [`Unpacker`], the part is read at once.
pub struct Lazy<T> {
    /// Where the value comes from when it is first asked for.
    source: Source<T>,
    value: OnceLock<T>,
}

/// What a [`Lazy`] reads its value from.
enum Source<T> {
    /// The packed value and the text its strings are in.
    Packed(&'static [u8], &'static str),
    /// A default: a part a compiled-in profile leaves out.
    Made(fn() -> T),
    /// Read already (from another source, or a default): the value is set.
    Ready,
}

impl<T> Clone for Source<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Source<T> {}

/// A key fact's schema, read on first use.
pub type LazyJson = Lazy<serde_json::Value>;

impl<T> Lazy<T> {
    /// A value already read.
    pub fn ready(value: T) -> Self {
        Lazy {
            source: Source::Ready,
            value: OnceLock::from(value),
        }
    }

    /// The packed value `bytes` holds, its strings in `text`, read on first use: a
    /// part the Unpacker stepped over, or one of a profile build.rs laid out.
    pub(super) const fn packed(bytes: &'static [u8], text: &'static str) -> Self {
        Lazy {
            source: Source::Packed(bytes, text),
            value: OnceLock::new(),
        }
    }

    /// `T`'s default, made on first use: a part a compiled-in profile leaves out.
    pub(super) const fn by_default() -> Self
    where
        T: Default,
    {
        Lazy {
            source: Source::Made(T::default),
            value: OnceLock::new(),
        }
    }
}

impl<T: de::Deserialize<'static>> Lazy<T> {
    fn get(&self) -> &T {
        self.value.get_or_init(|| match self.source {
            Source::Packed(bytes, text) => {
                from_packed(bytes, text).expect("a part stepped over reads (tested)")
            }
            Source::Made(make) => make(),
            Source::Ready => unreachable!("a ready Lazy holds its value"),
        })
    }
}

impl<T: de::Deserialize<'static>> std::ops::Deref for Lazy<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.get()
    }
}

impl<T: de::Deserialize<'static>> std::ops::DerefMut for Lazy<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.get();
        self.value.get_mut().expect("read just now")
    }
}

impl<T: Clone> Clone for Lazy<T> {
    fn clone(&self) -> Self {
        Lazy {
            source: self.source,
            value: self.value.clone(),
        }
    }
}

impl<T: Default> Default for Lazy<T> {
    fn default() -> Self {
        Lazy::ready(T::default())
    }
}

impl<T: de::Deserialize<'static> + std::fmt::Debug> std::fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.get(), f)
    }
}

impl<'de, T: de::Deserialize<'de>> de::Deserialize<'de> for Lazy<T>
where
    'de: 'static,
{
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Parts<T>(std::marker::PhantomData<T>);
        impl<'de, T: de::Deserialize<'de>> Visitor<'de> for Parts<T>
        where
            'de: 'static,
        {
            type Value = Lazy<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a profile's part")
            }
            // Any deserializer but the Unpacker: the part, read now.
            fn visit_newtype_struct<D: de::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Lazy<T>, D::Error> {
                T::deserialize(d).map(Lazy::ready)
            }
            // The Unpacker: the packed part and its text.
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Lazy<T>, A::Error> {
                let bytes: &'static [u8] = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(0, &self))?;
                let text: &'static str = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(1, &self))?;
                Ok(Lazy::packed(bytes, text))
            }
        }
        d.deserialize_newtype_struct(LAZY, Parts(std::marker::PhantomData))
    }
}

/// A packed value's extent and its text, as a [`Lazy`] takes them.
struct Extent {
    bytes: Option<&'static [u8]>,
    text: Option<&'static str>,
}

impl<'de> de::SeqAccess<'de> for Extent
where
    'de: 'static,
{
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if let Some(bytes) = self.bytes.take() {
            return seed
                .deserialize(de::value::BorrowedBytesDeserializer::new(bytes))
                .map(Some);
        }
        match self.text.take() {
            Some(text) => seed
                .deserialize(de::value::BorrowedStrDeserializer::new(text))
                .map(Some),
            None => Ok(None),
        }
    }
}

/// The items of an array, counted.
struct Items<'a> {
    u: &'a mut Unpacker,
    left: usize,
}

impl<'de> de::SeqAccess<'de> for Items<'_>
where
    'de: 'static,
{
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.u).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// The members of an object, counted.
struct Members<'a> {
    u: &'a mut Unpacker,
    left: usize,
}

impl<'de> de::MapAccess<'de> for Members<'_>
where
    'de: 'static,
{
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let key = self.u.str()?;
        seed.deserialize(de::value::BorrowedStrDeserializer::new(key))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(&mut *self.u)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// An enum written as `{"variant": value}` (a unit variant is its name alone).
struct Variant<'a> {
    u: &'a mut Unpacker,
}

impl<'de> de::EnumAccess<'de> for Variant<'_>
where
    'de: 'static,
{
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        let name = self.u.str()?;
        let v = seed.deserialize(de::value::BorrowedStrDeserializer::new(name))?;
        Ok((v, self))
    }
}

impl<'de> de::VariantAccess<'de> for Variant<'_>
where
    'de: 'static,
{
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        de::Deserialize::deserialize(self.u)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self.u)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_seq(self.u, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_map(self.u, visitor)
    }
}

/// Integer readers that read as [`de::Deserializer::deserialize_u64`] does (the
/// visitor checks the range, as with serde_json).
macro_rules! integers_as_u64 {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.deserialize_u64(visitor)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Unpacker
where
    'de: 'static,
{
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.tag()? {
            NULL => visitor.visit_unit(),
            FALSE => visitor.visit_bool(false),
            TRUE => visitor.visit_bool(true),
            UINT => visitor.visit_u64(self.word()?),
            INT => visitor.visit_i64(self.word()? as i64),
            FLOAT => visitor.visit_f64(f64::from_bits(self.word()?)),
            STR => visitor.visit_borrowed_str(self.str()?),
            ARRAY => self.items(visitor),
            OBJECT => self.members(visitor),
            t => Err(Error(format!("unknown tag {t}"))),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.peek()? == NULL {
            self.pos += 1;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        if name == LAZY {
            let start = self.pos;
            self.skip()?;
            let bytes = &self.bytes[start..self.pos];
            return visitor.visit_seq(Extent {
                bytes: Some(bytes),
                text: Some(self.text),
            });
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.tag()? {
            STR => visitor.visit_enum(self.str()?.into_deserializer()),
            OBJECT => match self.container()? {
                (1, end) => {
                    let v = visitor.visit_enum(Variant { u: &mut *self })?;
                    self.ended(end).map(|()| v)
                }
                _ => Err(Error(
                    "an enum is a variant's name or an object of one member".into(),
                )),
            },
            _ => Err(Error(
                "an enum is a variant's name or an object of one member".into(),
            )),
        }
    }

    // What a profile's types ask for, each read for the one form it takes, so that
    // a type's reading holds only its own form's code (forwarded to
    // `deserialize_any`, every struct, list, map and string reader of every type
    // held all nine forms' visitors, most of them error paths: a one-file lint
    // runs ~40 such readers once, and their code was read in cold). A value of
    // another form is the same error serde_json gives, worded once
    // ([`Unpacker::unexpected`]).
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.tag()? {
            OBJECT => self.members(visitor),
            t => Err(Unpacker::unexpected(t, "an object")),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.tag()? {
            ARRAY => self.items(visitor),
            t => Err(Unpacker::unexpected(t, "an array")),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.tag()? {
            STR => visitor.visit_borrowed_str(self.str()?),
            t => Err(Unpacker::unexpected(t, "a string")),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.tag()? {
            FALSE => visitor.visit_bool(false),
            TRUE => visitor.visit_bool(true),
            t => Err(Unpacker::unexpected(t, "a boolean")),
        }
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.tag()? {
            UINT => visitor.visit_u64(self.word()?),
            INT => visitor.visit_i64(self.word()? as i64),
            t => Err(Unpacker::unexpected(t, "an integer")),
        }
    }

    integers_as_u64! {
        deserialize_u32 deserialize_u16 deserialize_u8 deserialize_i64 deserialize_i32
        deserialize_i16 deserialize_i8
    }

    serde::forward_to_deserialize_any! {
        i128 u128 f32 f64 char bytes byte_buf unit unit_struct tuple tuple_struct
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packed(v: &serde_json::Value) -> (&'static [u8], &'static str) {
        let mut out = super::super::packed::Packer::default();
        super::super::packed::pack(v, &mut out);
        (out.bytes.leak(), out.text.leak())
    }

    fn read<T: de::Deserialize<'static>>(
        (b, t): (&'static [u8], &'static str),
    ) -> Result<T, Error> {
        from_packed(b, t)
    }

    /// Any JSON value reads back as itself.
    #[test]
    fn values_read_back_as_themselves() {
        let v = serde_json::json!({
            "s": "tab\there \"quoted\" é", "n": null, "t": true, "f": false,
            "u": 18446744073709551615u64, "i": -3, "x": 0.5,
            "a": [1, [], {}, "x"], "o": {"k": {"deep": [null]}}
        });
        let back: serde_json::Value = read(packed(&v)).unwrap();
        assert_eq!(back, v);
    }

    /// Enums, options and structs read as serde_json reads them, and a value cut
    /// short or followed by more is an error, not a panic.
    #[test]
    fn typed_reads_match_serde_json_and_bad_input_is_an_error() {
        #[derive(Debug, PartialEq, serde::Deserialize)]
        #[serde(rename_all = "snake_case")]
        enum E {
            Unit,
            New(u8),
            Pair(u8, String),
            Rec { a: bool },
        }
        #[derive(Debug, PartialEq, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct S {
            e: Vec<E>,
            o: Option<String>,
            #[serde(default)]
            d: Option<u8>,
        }
        let v = serde_json::json!({
            "e": ["unit", {"new": 3}, {"pair": [1, "x"]}, {"rec": {"a": true}}],
            "o": null
        });
        let want: S = serde_json::from_value(v.clone()).unwrap();
        let got: S = read(packed(&v)).unwrap();
        assert_eq!(got, want);

        let unknown = serde_json::json!({"e": [], "o": "x", "z": 1});
        assert!(read::<S>(packed(&unknown)).is_err());
        let (bytes, text) = packed(&v);
        for cut in 0..bytes.len() {
            assert!(
                from_packed::<serde_json::Value>(&bytes[..cut], text).is_err(),
                "{cut}"
            );
        }
        let mut longer = bytes.to_vec();
        longer.push(NULL);
        assert!(from_packed::<serde_json::Value>(longer.leak(), text).is_err());
        // A container whose size is not its parts' (bytes 5..9 after its tag and
        // count), one byte either way.
        for v in [
            serde_json::json!([1, "x"]),
            serde_json::json!({"a": [true]}),
        ] {
            let (b, t) = packed(&v);
            assert!(from_packed::<serde_json::Value>(b, t).is_ok());
            for delta in [-1i64, 1] {
                let mut wrong = b.to_vec();
                let size = u32::from_le_bytes(wrong[5..9].try_into().unwrap()) as i64;
                wrong[5..9].copy_from_slice(&((size + delta) as u32).to_le_bytes());
                let wrong: &'static [u8] = wrong.leak();
                assert!(
                    from_packed::<serde_json::Value>(wrong, t).is_err(),
                    "{v} {delta}"
                );
            }
        }
        // A string whose place is outside the text, or splits a character.
        let (b, t) = packed(&serde_json::json!("é"));
        assert_eq!(read::<String>((b, t)).unwrap(), "é");
        assert!(from_packed::<String>(b, "").is_err());
        let mut split = b.to_vec();
        split[5] = 1; // the end: inside the two bytes of `é`
        assert!(from_packed::<String>(split.leak(), t).is_err());
    }

    /// Each form read for what it is, as serde_json reads it: the same values, and a
    /// value of another form is an error that says what was found and wanted.
    #[test]
    fn each_form_reads_as_serde_json_reads_it() {
        use serde_json::json;
        use std::collections::BTreeMap;
        fn same<T>(v: serde_json::Value)
        where
            T: de::DeserializeOwned + PartialEq + std::fmt::Debug,
        {
            let want = serde_json::from_value::<T>(v.clone());
            let got = read::<T>(packed(&v));
            match (&want, &got) {
                (Ok(w), Ok(g)) => assert_eq!(g, w, "{v}"),
                (Err(_), Err(_)) => {}
                _ => panic!("{v}: serde_json {want:?}, packed {got:?}"),
            }
        }
        let values = [
            json!(null),
            json!(true),
            json!(3),
            json!(-3),
            json!(300),
            json!(0.5),
            json!("x"),
            json!([1, 2]),
            json!({"a": 1}),
        ];
        for v in values {
            same::<bool>(v.clone());
            same::<u8>(v.clone());
            same::<u32>(v.clone());
            same::<u64>(v.clone());
            same::<i8>(v.clone());
            same::<i64>(v.clone());
            same::<String>(v.clone());
            same::<Vec<u8>>(v.clone());
            same::<BTreeMap<String, u8>>(v.clone());
            same::<Option<String>>(v.clone());
        }
        let e = read::<String>(packed(&json!([1]))).unwrap_err().to_string();
        assert_eq!(e, "invalid type: an array, expected a string");
        let e = read::<Vec<u8>>(packed(&json!({}))).unwrap_err().to_string();
        assert_eq!(e, "invalid type: an object, expected an array");
    }

    /// A [`Lazy`] part between other fields is stepped over whole: the fields after
    /// it read, and it reads as the value it stands for (a JSON value of any form
    /// and nesting, or a typed part, absent or present, and changed in place);
    /// from serde_json it is the same value. Cut short, it is an error when the
    /// struct is read, not a panic later.
    #[test]
    fn a_lazy_value_is_stepped_over_and_reads_as_itself() {
        use serde_json::json;
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct S {
            before: &'static str,
            lazy: LazyJson,
            after: Vec<u8>,
            #[serde(default)]
            typed: Lazy<Option<Vec<&'static str>>>,
        }
        let forms = [
            json!(null),
            json!(false),
            json!(true),
            json!(7),
            json!(-7),
            json!(0.25),
            json!("s é"),
            json!([]),
            json!({}),
            json!([1, "a", [null, {"k": [true]}], {}]),
            json!({"type": "string", "enum": ["a", "b"], "x": {"y": {"z": [1.5, -2]}}}),
        ];
        for v in forms {
            let doc = json!({"before": "b", "lazy": v, "after": [1, 2], "typed": ["x", "y"]});
            let mut got: S = read(packed(&doc)).unwrap();
            assert_eq!((got.before, &got.after[..]), ("b", &[1u8, 2][..]), "{v}");
            assert_eq!(*got.lazy, v);
            assert_eq!(*got.typed, Some(vec!["x", "y"]));
            got.typed.as_mut().unwrap().push("z");
            assert_eq!(got.typed.as_deref(), Some(&["x", "y", "z"][..]));
            let absent = json!({"before": "b", "lazy": v, "after": []});
            assert_eq!(*read::<S>(packed(&absent)).unwrap().typed, None);
            let doc: &'static serde_json::Value = Box::leak(Box::new(doc));
            let from_json = <S as de::Deserialize>::deserialize(doc).unwrap();
            assert_eq!(*from_json.lazy, v);
            assert_eq!(format!("{:?}", got.lazy), format!("{v:?}"));
            let (bytes, text) = packed(doc);
            for cut in 0..bytes.len() {
                assert!(from_packed::<S>(&bytes[..cut], text).is_err(), "{v}: {cut}");
            }
        }
    }
}
