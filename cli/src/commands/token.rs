//! `ctxguard token`: a read token for one session, alone on stdout, signed
//! with the read secret the server takes (see the README's "Deploy the relay").

use crate::args::TokenArgs;
use crate::server::auth::{secret_from_file_or_env, unix_secs, ReadSecret, READ_SECRET_VAR};
use crate::server::session_id::SessionId;
use anyhow::{anyhow, Result};
use std::process::ExitCode;

/// Prints one read token; a missing secret or an invalid session id is a usage error.
pub fn run(args: &TokenArgs) -> Result<ExitCode> {
    let session = SessionId::parse(&args.session).map_err(|_| {
        anyhow!(
            "--session {:?}: a session id is 1 to 128 characters of A-Z a-z 0-9 . _ : -",
            args.session
        )
    })?;
    let secret = secret_from_file_or_env(args.read_secret_file.as_deref(), READ_SECRET_VAR)?
        .ok_or_else(|| {
            anyhow!("no read secret: pass --read-secret-file FILE or set {READ_SECRET_VAR}")
        })?;
    let expires = unix_secs().saturating_add(args.ttl_secs);
    println!("{}", ReadSecret::new(&secret).mint(&session, expires));
    Ok(ExitCode::SUCCESS)
}
