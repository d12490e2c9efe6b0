//! What several checks read the same way. Check modules import from here, never
//! from each other.

pub(crate) mod data;
pub(crate) mod manifest_view;
pub(crate) mod output;
pub(crate) mod stream_format;
