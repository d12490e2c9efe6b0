//! `conform run --badge PATH`: a shields-style flat SVG badge for READMEs,
//! "agent-ready | level 3". Hand-written and deterministic: the same results give the
//! same bytes, so a committed badge changes only when the verdict does.
//!
//! A run with a failing check (conform exits 4) gets a red badge that counts them,
//! "agent-ready | 2 failing checks", whatever the levels say: the levels follow the
//! reference kit's 14 checks, and a failing extension check leaves them passing.
//! Otherwise the message is the highest level N whose levels 1..=N all pass, over
//! every profile (the weakest profile decides): bright green when level 3 passes,
//! yellow when a level above N is only incomplete, grey "incomplete" when level 1
//! itself is.

use crate::result::{LevelStatus, ProfileReport};

const LABEL: &str = "agent-ready";
const GREEN: &str = "#4c1";
const RED: &str = "#e05d44";
const YELLOW: &str = "#dfb317";
const GREY: &str = "#9f9f9f";

/// The badge's message and color.
pub(crate) fn verdict(results: &[ProfileReport]) -> (String, &'static str) {
    let failed: usize = results.iter().map(|r| r.summary.failed).sum();
    if failed > 0 {
        let checks = if failed == 1 { "check" } else { "checks" };
        return (format!("{failed} failing {checks}"), RED);
    }
    // Per profile: levels passed in a row from level 1. With no failed check no level
    // failed, so the first level that did not pass is incomplete.
    let passed = results
        .iter()
        .map(|r| {
            [r.levels.level_1, r.levels.level_2, r.levels.level_3]
                .iter()
                .take_while(|l| **l == LevelStatus::Pass)
                .count()
        })
        .min()
        .unwrap_or(0);
    match passed {
        0 => ("incomplete".to_string(), GREY),
        3 => ("level 3".to_string(), GREEN),
        n => (format!("level {n}"), YELLOW),
    }
}

pub(crate) fn to_svg(results: &[ProfileReport]) -> String {
    let (message, color) = verdict(results);
    svg(LABEL, &message, color)
}

/// Approximate width in pixels of `text` in 11px Verdana (shields' font), from a small
/// table of character classes: close enough to size the badge, and deterministic.
fn text_width(text: &str) -> f64 {
    text.chars()
        .map(|c| match c {
            'i' | 'l' | 'j' | '.' | ',' | ':' | ';' | '|' | '!' | '\'' => 3.5,
            'f' | 't' | 'r' | 'I' | ' ' | '-' | '(' | ')' => 4.6,
            'm' | 'w' | 'M' | 'W' => 10.7,
            'A'..='Z' => 7.6,
            _ => 6.9,
        })
        .sum()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The flat badge: two rounded halves, text with a faint shadow.
fn svg(label: &str, message: &str, color: &str) -> String {
    // Widths in pixels, whole numbers so the output is stable; text is centred in
    // each half with 5px of padding either side.
    let label_text = text_width(label).round() as u32;
    let message_text = text_width(message).round() as u32;
    let label_w = label_text + 10;
    let message_w = message_text + 10;
    let width = label_w + message_w;
    // shields draws text at 10x scale for sub-pixel placement.
    let label_x = label_w * 5;
    let message_x = (label_w * 10) + message_w * 5;
    let (label, message) = (escape(label), escape(message));
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" aria-label="{label}: {message}"><title>{label}: {message}</title><linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient><clipPath id="r"><rect width="{width}" height="20" rx="3" fill="#fff"/></clipPath><g clip-path="url(#r)"><rect width="{label_w}" height="20" fill="#555"/><rect x="{label_w}" width="{message_w}" height="20" fill="{color}"/><rect width="{width}" height="20" fill="url(#s)"/></g><g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110"><text aria-hidden="true" x="{label_x}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="{label_tl}">{label}</text><text x="{label_x}" y="140" transform="scale(.1)" fill="#fff" textLength="{label_tl}">{label}</text><text aria-hidden="true" x="{message_x}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="{message_tl}">{message}</text><text x="{message_x}" y="140" transform="scale(.1)" fill="#fff" textLength="{message_tl}">{message}</text></g></svg>
"##,
        label_tl = label_text * 10,
        message_tl = message_text * 10,
    )
}
