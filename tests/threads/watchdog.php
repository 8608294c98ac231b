<?php
/*
 * Drives the watchdog thread through every path it shares with the PHP thread
 * (add, renew, ttl change, loss detection with on_lost=throw through the VM
 * interrupt, remove, fork, shutdown); scripts/test runs it under helgrind,
 * which must find no data race and no lock-order problem.
 * Needs DISTLOCK_TEST_REDIS. Prints "ok" and exits 0 when the behaviour held.
 */
$uri = getenv('DISTLOCK_TEST_REDIS') ?: exit("DISTLOCK_TEST_REDIS is not set\n");
$d = new DistLock($uri, ['prefix' => 'threads:', 'watchdog' => true, 'on_lost' => 'throw']);
$other = new DistLock($uri, ['prefix' => 'threads:']);
$locks = [];
for ($i = 0; $i < 20; $i++) {
    $locks[] = $d->lock("l$i", 0.3);
}
usleep(700000);                               // renewals under way
foreach ($locks as $i => $l) {
    if ($i % 2) $l->refresh(0.6);             // ttl changes, some while a renewal is in flight
}
$again = $d->lock('l0', 0.3);                 // reentrant: one more handle
unset($again);
usleep(400000);
$other->forceRelease('l3');                   // the next renewal finds it gone
$lost = false;
try {
    $t = microtime(true);
    while (microtime(true) - $t < 5) usleep(1000);
} catch (DistLock\LockLostException $e) {
    $lost = str_contains($e->getMessage(), '"l3"');
}
$pid = pcntl_fork();                          // the child drops the parent's schedule
if ($pid === 0) {
    $c = $d->lock('child', 0.3);
    usleep(500000);
    exit($c->isAcquired() ? 0 : 1);
}
pcntl_waitpid($pid, $status);
$alive = 0;
foreach ($locks as $i => $l) {
    if ($i !== 3) $alive += (int)$l->isAcquired();
}
foreach ($locks as $l) $l->release();
$ok = $lost && $alive === 19 && pcntl_wexitstatus($status) === 0;
echo $ok ? "ok\n" : "FAILED: lost=" . var_export($lost, true) . " alive=$alive child=" . pcntl_wexitstatus($status) . "\n";
exit($ok ? 0 : 1);
