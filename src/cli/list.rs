//! `meshsim list`: names what the other subcommands accept: every built-in runtime
//! personality and every wire dialect.

use meshsim_protocol::{Dialect, Method};
use meshsim_runtimes::builtins;
use std::process::ExitCode;

pub fn run() -> ExitCode {
    print!("{}", render());
    ExitCode::SUCCESS
}

fn render() -> String {
    let mut out = String::from("runtimes (--runtime NAME, or the path of a personality file):\n");
    let personalities = builtins();
    let width = personalities
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(0);
    for personality in &personalities {
        out.push_str(&format!(
            "  {:width$}  {}\n",
            personality.name, personality.description
        ));
    }
    out.push_str("dialects (--dialect):\n");
    for dialect in Dialect::ALL {
        let codec = dialect.codec();
        let methods: Vec<&str> = Method::ALL
            .into_iter()
            .filter_map(|method| codec.method_name(method))
            .collect();
        out.push_str(&format!(
            "  {}  card at {}; methods {}\n",
            dialect,
            dialect.card_path(),
            methods.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_every_builtin_and_dialect() {
        let text = render();
        for name in meshsim_runtimes::BUILTIN_NAMES {
            assert!(
                text.contains(&format!("  {name} ")),
                "{name} missing from\n{text}"
            );
        }
        for dialect in Dialect::ALL {
            assert!(
                text.contains(&format!("  {dialect}  ")),
                "{dialect} missing"
            );
        }
    }
}
