//! What `conform check` decides about a tool's commands once they are found:
//! which come first (where dangers live, [`danger`]), what the budget lets it
//! survey and judge in depth ([`phases`]), and what the survey takes from
//! exploration instead of running again ([`survey`]). Discovery (reading the help
//! texts) and making the runs stay in `init`, which writes profiles from them too.

/// The value given to a command's required operands: whatever the value, a
/// prompt, an editor or a hang shows, and its error path is what an agent meets
/// first.
pub(crate) const MADE_UP_OPERAND: &str = "conform-probe";

pub(crate) mod danger;
pub(crate) mod phases;
pub(crate) mod survey;
