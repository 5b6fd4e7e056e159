//! `ctxguard limits`: a model's context budget.

use crate::input::thousands;
use anyhow::Result;
use ctxguard_core::budget::{context_limits, ModelConfig};
use ctxguard_core::encoding::Encoding;
use std::process::ExitCode;

pub fn run(
    model: &str,
    context_window: Option<i64>,
    max_output: Option<i64>,
    auto_compact_limit: Option<i64>,
) -> Result<ExitCode> {
    if max_output.is_some() && context_window.is_none() {
        // The reference ignores max_output_tokens when a model config has no context_window.
        eprintln!("note: --max-output is ignored without --context-window, as in a model config");
    }
    let config = ModelConfig {
        context_window,
        max_output_tokens: max_output,
    };
    let l = context_limits(model, Some(&config), auto_compact_limit);
    say!(
        "model                   {model} ({})",
        Encoding::for_model(model).name()
    )?;
    for (label, value) in [
        ("context window", l.context_window),
        ("reserved output", l.reserved_output_tokens),
        ("available input", l.available_tokens),
        ("compaction trigger", l.trigger_limit),
        ("compaction target", l.target_limit),
    ] {
        say!("{label:<22}  {:>11}", thousands(value))?;
    }
    Ok(ExitCode::SUCCESS)
}
