//! meshsim against the real A2A SDKs (Python and JavaScript), installed by
//! `interop/install.sh` under `target/interop`, on loopback.

mod support;

mod js;
mod python;
