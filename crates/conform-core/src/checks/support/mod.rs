//! What several checks read the same way. Check modules import from here, never
//! from each other.

// Shared with the planner, which compares runs to decide on follow-up runs.
pub(crate) use crate::data;
pub(crate) mod canaries;
pub(crate) mod manifest_view;
pub(crate) mod output;
pub(crate) mod proxy;
pub(crate) mod stream_format;
pub(crate) mod terminal;
pub(crate) mod tool_version;
pub(crate) mod waits;
