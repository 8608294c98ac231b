--TEST--
Redlock: with the masters stalled (SIGSTOP), every operation ends within its call's bound (`timeout`; a waiting acquire max(wait, timeout)), whatever undo or retry it still owes; afterwards nothing outlives its TTL
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_REDLOCK')) die('skip DISTLOCK_TEST_REDLOCK not set'); ?>
--FILE--
<?php
require __DIR__ . '/redlock.inc';
require __DIR__ . '/../phpt/inc/proc.inc';
$timeout = 0.3;
$margin = is_valgrind() ? 0.4 : 0.2;
$ttl = 2.0;
$ops = [
    'tryLock' => [null, fn($d, $h) => $d->tryLock('a', $ttl)],
    'lock(wait: 0)' => [null, fn($d, $h) => $d->lock('a', $ttl, 0)],
    'lock(wait: 1)' => [1.0, fn($d, $h) => $d->lock('a', $ttl, 1.0)],
    'synchronized' => [null, fn($d, $h) => $d->synchronized('y', fn() => 1, $ttl, 0)],
    'Lock::release' => [null, fn($d, $h) => $h->release()],
    'Lock::refresh' => [null, fn($d, $h) => $h->refresh()],
    'release(name, token)' => [null, fn($d, $h) => $d->release('h', $h->token())],
    'refresh(name, token)' => [null, fn($d, $h) => $d->refresh('h', $h->token())],
    'releaseAll' => [null, fn($d, $h) => $d->releaseAll([$h])],
    'restore' => [null, fn($d, $h) => $d->restore('h', $h->token())],
    'status' => [null, fn($d, $h) => $d->status('h')],
    'isLocked' => [null, fn($d, $h) => $d->isLocked('h')],
    'owner' => [null, fn($d, $h) => $d->owner('h')],
    'forceRelease' => [null, fn($d, $h) => $d->forceRelease('z')],
];
$i = 0;
try {
    foreach ($ops as $name => [$wait, $op]) {
        $prefix = 'rl10:' . $i++ . ':';
        $d = new DistLock(rl_uris(), ['prefix' => $prefix, 'timeout' => $timeout, 'defer_release' => false]);
        $held = $d->tryLock('h', 30);              // a first successful call: every master connected
        rl_stop([0, 1, 2, 3, 4]);
        $t = hrtime(true);
        try {
            $op($d, $held);
            $result = 'no exception';
        } catch (DistLock\ConnectionException $e) {
            $result = 'ConnectionException';
        }
        $el = (hrtime(true) - $t) / 1e9;
        unset($e);
        rl_cont_all();
        $bound = max($wait ?? 0.0, $timeout);
        echo "$name: $result", $el <= $bound + $margin ? ', within its bound' : sprintf(', %.3f s for a %.3f s bound', $el, $bound), "\n";
        unset($held, $d);
    }
} finally {
    rl_cont_all();
}
// what the stalled masters ran on resuming (SET ... PX) expires within the ttl
usleep((int)(($ttl + 0.3) * 1e6));
$left = [];
foreach (range(0, count($ops) - 1) as $j) {
    foreach (['a', 'y'] as $n) {
        $left += array_filter(rl_values("rl10:$j:$n"));
    }
}
echo "acquired names left after their TTL: ", count($left), "\n";
?>
--EXPECT--
tryLock: ConnectionException, within its bound
lock(wait: 0): ConnectionException, within its bound
lock(wait: 1): ConnectionException, within its bound
synchronized: ConnectionException, within its bound
Lock::release: ConnectionException, within its bound
Lock::refresh: ConnectionException, within its bound
release(name, token): ConnectionException, within its bound
refresh(name, token): ConnectionException, within its bound
releaseAll: ConnectionException, within its bound
restore: ConnectionException, within its bound
status: ConnectionException, within its bound
isLocked: ConnectionException, within its bound
owner: ConnectionException, within its bound
forceRelease: ConnectionException, within its bound
acquired names left after their TTL: 0
