//! A turmoil TCP listener that `axum::serve::Listener` accepts, so [`serve`](super::serve())
//! runs the same router in the simulation and on real TCP.

use std::fmt;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use axum::serve::Listener;
use turmoil::net::{TcpListener, TcpStream};

use meshsim_trace::{ErrorKind, TraceEvent};

/// A listening turmoil socket on the current host.
pub struct SimListener {
    inner: TcpListener,
}

impl fmt::Debug for SimListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SimListener")
            .field("local_addr", &self.inner.local_addr().ok())
            .finish()
    }
}

impl SimListener {
    /// Binds `0.0.0.0:port` on the current simulated host. Must run inside a turmoil host.
    pub async fn bind(port: u16) -> io::Result<Self> {
        let inner = TcpListener::bind((Ipv4Addr::UNSPECIFIED, port)).await?;
        Ok(Self { inner })
    }
}

impl Listener for SimListener {
    type Io = TcpStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.inner.accept().await {
                Ok(accepted) => return accepted,
                Err(err) => {
                    TraceEvent::AcceptFailed {
                        error: ErrorKind::of(&err),
                    }
                    .emit();
                    meshsim_time::sleep(Duration::from_millis(10)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}
