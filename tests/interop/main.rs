//! meshsim against the real A2A SDKs (Python and JavaScript), installed by
//! `interop/install.sh` under `target/interop`, on loopback; and `meshsim check` judging
//! consumer programs, the SDK-based examples among them.

mod support;

mod check;
mod js;
mod python;
