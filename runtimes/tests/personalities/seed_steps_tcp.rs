//! The origin incident's five steps over real loopback TCP: each seed runtime served the way
//! `meshsim serve` serves it (meshsim_sim::serve on a tokio listener, wall clock), driven by
//! a bare hyper HTTP/1.1 client.

use crate::support;
use crate::support::{Client, Target};
use meshsim_protocol::Dialect;
use meshsim_protocol::clock::Clock;
use meshsim_runtimes::{Runtime, builtin};

async fn play(name: &str, dialect: Dialect) {
    let runtime = Runtime::new(builtin(name).unwrap(), dialect, Clock::wall(), 11);
    let truth = runtime.truth();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(meshsim_sim::serve(listener, runtime.router()));
    let client = Client::new(Target::Tcp(addr), dialect);
    support::incident::play(&client, name, Some(&truth)).await;
    server.abort();
}

#[tokio::test]
async fn python_correct_over_tcp() {
    for dialect in Dialect::ALL {
        play("python-correct", dialect).await;
    }
}

#[tokio::test]
async fn go_replaying_over_tcp() {
    for dialect in Dialect::ALL {
        play("go-replaying", dialect).await;
    }
}

#[tokio::test]
async fn jvm_reaping_over_tcp() {
    for dialect in Dialect::ALL {
        play("jvm-reaping", dialect).await;
    }
}
