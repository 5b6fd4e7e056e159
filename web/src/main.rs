//! Mounts the toolbar app; everything else lives in the library.

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(ctxguard_web::App);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "ctxguard-web runs in the browser: build it with `trunk build --release` and serve dist/"
    );
}
