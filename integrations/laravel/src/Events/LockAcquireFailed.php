<?php

declare(strict_types=1);

namespace DistLock\Laravel\Events;

/**
 * A lock was not granted (operation 'acquire'), $outcome says why: 'conflict' (a try
 * form found it held: Cache::lock()->get() false), 'timeout' (a wait ran out:
 * block()'s LockTimeoutException; $wait is how long it waited), 'deadlock' (the wait
 * was refused at once because it would close a cycle of waits across processes:
 * block()'s LockTimeoutException with a \DistLock\DeadlockException as previous)
 * or 'wrong_kind' (the name is held under another kind of lock: a
 * LockKindException). A network failure is LockConnectionFailed, not this.
 */
final class LockAcquireFailed implements LockEvent
{
    use CarriesLockData;
}
