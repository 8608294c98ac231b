<?php

declare(strict_types=1);

// The other side of a deadlock: deadlock-peer.php REDIS FIRST SECOND.
// Takes the mutex FIRST, prints "held", waits for a line on stdin, prints
// "waiting" and waits (10 s at most) for the mutex SECOND; prints "granted",
// or "deadlock MESSAGE" when the extension refuses the wait. Releases both.
// No observer here: its events are not the test's.
[, $redis, $first, $second] = $argv;
$locks = new DistLock($redis, ['prefix' => 'otel-test:']);
$mine = $locks->lock($first, 30, 5);
echo "held\n";
fflush(STDOUT);
fgets(STDIN);
echo "waiting\n";
fflush(STDOUT);
try {
    $locks->lock($second, 30, 10)->release();
    echo "granted\n";
} catch (DistLock\LockTimeoutException $e) {
    echo get_class($e) === 'DistLock\DeadlockException' ? 'deadlock ' : 'timeout ', $e->getMessage(), "\n";
}
$mine->release();
