//! The file-system work of sandboxes, off the reactor's thread: a helper thread
//! makes the fresh directories of isolated runs ahead of time and removes every
//! sandbox after its run. The reactor only takes a ready set and hands one back, so
//! it never sits in `mkdir` or `unlink` while tools wait for it to drain their
//! pipes (directory runs spent a third of their CPU there).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use super::sandbox::{remove_tree, FRESH_DIRS};

/// Fresh sets kept ready once isolated runs have begun: more than the runs a
/// reactor starts between two wakes of the helper, few enough to cost nothing.
const READY_SETS: usize = 16;

/// The helper and its queues; owned by the session's scratch directory.
#[derive(Debug, Default)]
pub(super) struct Janitor {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

#[derive(Debug, Default)]
struct Shared {
    work: Mutex<Work>,
    wake: Condvar,
}

#[derive(Debug, Default)]
struct Work {
    /// Run directories with their fresh directories made, oldest first.
    ready: Vec<PathBuf>,
    /// Sandboxes whose runs are over.
    remove: Vec<PathBuf>,
    /// Where fresh sets are made, and the counter that names them; set by the
    /// first request for one.
    make_in: Option<(PathBuf, Arc<AtomicU64>)>,
    stop: bool,
}

/// Hands a finished sandbox to the helper; cheap to clone, and usable after the
/// session has gone (its scratch directory then goes whole).
#[derive(Debug, Clone)]
pub(super) struct Discard(Arc<Shared>);

impl Discard {
    pub(super) fn remove(&self, dir: PathBuf) {
        let mut work = lock(&self.0.work);
        if work.stop {
            drop(work);
            remove_tree(&dir);
            return;
        }
        work.remove.push(dir);
        self.0.wake.notify_one();
    }
}

impl Janitor {
    /// A run directory named `run-N` under `parent`, with the fresh directories
    /// made: one made ahead of time when the helper has one ready, else made now.
    pub(super) fn fresh_set(&self, parent: &Path, next: &Arc<AtomicU64>) -> io::Result<PathBuf> {
        let ready = {
            let mut work = lock(&self.shared.work);
            if work.make_in.is_none() {
                work.make_in = Some((parent.to_path_buf(), Arc::clone(next)));
            }
            let taken = (!work.ready.is_empty()).then(|| work.ready.remove(0));
            self.shared.wake.notify_one();
            taken
        };
        self.start_once();
        match ready {
            Some(dir) => Ok(dir),
            None => make_set(parent, next),
        }
    }

    pub(super) fn discard(&self) -> Discard {
        self.start_once();
        Discard(Arc::clone(&self.shared))
    }

    fn start_once(&self) {
        let mut thread = self
            .thread
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if thread.is_some() || lock(&self.shared.work).stop {
            return;
        }
        let shared = Arc::clone(&self.shared);
        // Without the helper everything still works, made and removed inline.
        *thread = std::thread::Builder::new()
            .name("conform-sandboxes".into())
            .spawn(move || serve(&shared))
            .ok();
    }

    /// Stops the helper once it has removed what it was given; what it had made
    /// ahead is removed too.
    pub(super) fn stop(&self) {
        lock(&self.shared.work).stop = true;
        self.shared.wake.notify_all();
        let thread = self
            .thread
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        if let Some(thread) = thread {
            let _ = thread.join();
        }
        let left: Vec<PathBuf> = {
            let mut work = lock(&self.shared.work);
            let mut left = std::mem::take(&mut work.ready);
            left.append(&mut work.remove);
            left
        };
        for dir in left {
            remove_tree(&dir);
        }
    }
}

/// The helper: removes what it is handed, first, then tops up the ready sets.
fn serve(shared: &Shared) {
    let mut work = lock(&shared.work);
    loop {
        if let Some(dir) = work.remove.pop() {
            drop(work);
            remove_tree(&dir);
            work = lock(&shared.work);
            continue;
        }
        if work.stop {
            return;
        }
        let due = work
            .make_in
            .clone()
            .filter(|_| work.ready.len() < READY_SETS);
        if let Some((parent, next)) = due {
            drop(work);
            let made = make_set(&parent, &next);
            work = lock(&shared.work);
            match made {
                Ok(dir) => work.ready.push(dir),
                // The reactor makes its own then, and reports what fails.
                Err(_) => work.make_in = None,
            }
            continue;
        }
        work = shared
            .wake
            .wait(work)
            .unwrap_or_else(|poisoned| poisoned.into_inner());
    }
}

/// `parent/run-N` with the fresh directories in it; removed again on a failure.
fn make_set(parent: &Path, next: &AtomicU64) -> io::Result<PathBuf> {
    let dir = parent.join(format!("run-{}", next.fetch_add(1, Ordering::Relaxed)));
    fs::create_dir(&dir)?;
    for (_, sub) in FRESH_DIRS {
        if let Err(err) = fs::create_dir(dir.join(sub)) {
            remove_tree(&dir);
            return Err(err);
        }
    }
    Ok(dir)
}

fn lock(work: &Mutex<Work>) -> MutexGuard<'_, Work> {
    work.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_sets_are_made_ahead_and_every_handed_back_set_is_removed() {
        let parent = tempfile::tempdir().expect("temp dir");
        let next = Arc::new(AtomicU64::new(0));
        let janitor = Janitor::default();
        let first = janitor.fresh_set(parent.path(), &next).expect("a set");
        for (_, sub) in FRESH_DIRS {
            assert!(first.join(sub).is_dir(), "{sub} in {first:?}");
        }
        let discard = janitor.discard();
        // The helper tops up its ready sets: later sets come from them, each new.
        let mut taken = vec![first];
        for _ in 0..READY_SETS + 4 {
            let set = janitor.fresh_set(parent.path(), &next).expect("a set");
            assert!(!taken.contains(&set), "{set:?} handed out twice");
            taken.push(set);
        }
        for set in &taken {
            std::fs::write(set.join("tmp/left-by-the-tool"), "x").expect("write");
            discard.remove(set.clone());
        }
        janitor.stop();
        for set in &taken {
            assert!(!set.exists(), "{set:?} removed");
        }
        let left: Vec<_> = std::fs::read_dir(parent.path())
            .expect("read")
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(
            left.is_empty(),
            "sets made ahead are removed on stop: {left:?}"
        );
        // After the stop, a set handed back is removed at once.
        let late = parent.path().join("late");
        std::fs::create_dir(&late).expect("mkdir");
        discard.remove(late.clone());
        assert!(!late.exists());
    }
}
