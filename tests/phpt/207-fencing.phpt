--TEST--
fencing: tokens grow strictly per name across instances and processes; reentrant handles share one; null without the option; the counter (the slot's, <prefix>distlock:fence{T}) has no TTL
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available');
?>
--INI--
max_execution_time=0
pcre.jit=0
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$prefix = 'phpt_207:';
raw_redis_del_prefix($prefix);
// sorted: KEYS answers in the order of the server's hash table, which other
// clients' keys can rehash between two calls (seen on Redis 8 under run-tests -j2)
$counters = function () use ($prefix) { $k = raw_redis('KEYS', $prefix . 'distlock:fence{*'); sort($k); return $k; };

$a = new DistLock(test_uri(), ['prefix' => $prefix, 'fencing' => true]);
$b = new DistLock(test_uri(), ['prefix' => $prefix, 'fencing' => true]);

// two owners alternating (lock, tryLock, synchronized): every grant is greater than the one before
$tokens = [];
for ($i = 0; $i < 6; $i++) {
    $d = $i % 2 ? $b : $a;
    switch ($i % 3) {
        case 0: $l = $d->lock('res', 5, 1); break;
        case 1: $l = $d->tryLock('res', 5); break;
        case 2: $l = null; $tokens[] = $d->synchronized('res', fn (DistLock\Lock $x) => $x->fencingToken(), 5, 1); break;
    }
    if ($l !== null) {
        $tokens[] = $l->fencingToken();
        $l->release();
    }
}
$ints = count(array_filter($tokens, 'is_int'));
$growing = true;
for ($i = 1; $i < count($tokens); $i++) {
    $growing = $growing && $tokens[$i] > $tokens[$i - 1];
}
echo "ints: $ints, strictly growing: ", var_export($growing, true), ", positive: ", var_export($tokens[0] > 0, true), "\n";

// reentrant handles share the grant's token
$outer = $a->lock('res', 5, 1);
$inner = $a->lock('res', 5, 1);
$t0 = $outer->fencingToken();
var_dump($t0 > end($tokens), $inner->fencingToken() === $t0, $inner->token() === $outer->token());
// another owner waiting for it gets a greater one once it is free
var_dump($b->tryLock('res', 5));
$inner->release();
var_dump($b->tryLock('res', 5));
$outer->release();
$viaWait = $b->lock('res', 5, 1);
$t1 = $viaWait->fencingToken();
var_dump($t1 > $t0);
$viaWait->release();

// a child process: its grant is greater than the parent's previous, the parent's next greater than the child's
$pid = fork_child(function () use ($prefix) {
    $c = new DistLock(test_uri(), ['prefix' => $prefix, 'fencing' => true]);
    $l = $c->lock('res', 5, 2);
    raw_redis('SET', $prefix . 'child_fence', (string)$l->fencingToken());
    $l->release();
    return 0;
});
echo wait_child($pid), "\n";
$tc = (int)raw_redis('GET', $prefix . 'child_fence');
$next = $a->lock('res', 5, 1);
$t2 = $next->fencingToken();
var_dump($tc > $t1, $t2 > $tc);

// the counter: the slot's (the only one so far), no TTL, survives the lock key; no per-name counter
$fenceKey = $counters()[0] ?? 'none';
echo count($counters()), " counter, per-name key: ", raw_redis('EXISTS', $prefix . 'res{' . $prefix . 'res}:fence'), "\n";
echo "counter: ", raw_redis('TYPE', $fenceKey), " pttl=", raw_redis('PTTL', $fenceKey), " value==last: ",
    var_export((int)raw_redis('GET', $fenceKey) === $t2, true), "\n";
$next->release();
var_dump(raw_redis('EXISTS', $prefix . 'res'), raw_redis('PTTL', $fenceKey));

// an expired lease (never released) does not reset the sequence
$short = $a->lock('res', 0.05, 1);
$t3 = $short->fencingToken();
usleep(200000);
var_dump(raw_redis('EXISTS', $prefix . 'res'));
$after = $b->lock('res', 5, 1);
var_dump($t3 > $t2, $after->fencingToken() > $t3);
$after->release();

// another name: its slot's counter (a second one, unless it shares res's slot), no key of its own
$other = $a->lock('res2', 5, 1);
var_dump(is_int($other->fencingToken()), count($counters()) <= 2, raw_redis('EXISTS', $prefix . 'res2{' . $prefix . 'res2}:fence'));
$other->release();
$before = $counters();

// without the option: null, and no counter is made
$plain = new DistLock(test_uri(), ['prefix' => $prefix]);
$p = $plain->lock('plain', 5, 1);
var_dump($p->fencingToken());
$p->release();
$p = $plain->lock('res', 5, 1);
var_dump($p->fencingToken());
$p->release();
var_dump($counters() === $before);
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_207:');
?>
--EXPECT--
ints: 6, strictly growing: true, positive: true
bool(true)
bool(true)
bool(true)
NULL
NULL
bool(true)
exit=0
bool(true)
bool(true)
1 counter, per-name key: 0
counter: string pttl=-1 value==last: true
int(0)
int(-1)
int(0)
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
NULL
NULL
bool(true)
