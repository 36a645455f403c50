//! A mutex lock that outlives a panic elsewhere: the data behind a poisoned lock is still
//! what the run recorded, and a report of it is worth more than a second panic.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, taking the data even when another thread panicked holding it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
