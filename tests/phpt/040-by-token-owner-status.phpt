--TEST--
DistLock::release()/refresh() by name and token, owner(), status(): results, waking a waiter, errors, no token in traces
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
if (!function_exists('pcntl_fork')) die('skip pcntl not available');
?>
--INI--
zend.exception_ignore_args=0
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$p = 'phpt_040:';
$a = new DistLock(test_uri(), ['prefix' => $p, 'ttl' => 9]);
$b = new DistLock(test_uri(), ['prefix' => $p]);

// owner(): null when free, the holder's token, a foreign value
var_dump($b->owner('o'));
$l = $a->lock('o', 5);
var_dump($b->owner('o') === $l->token());
raw_redis('SET', "{$p}foreign", 'not-a-distlock-token', 'PX', 5000);
var_dump($b->owner('foreign'));
raw_redis('RPUSH', "{$p}list", 'x');
// a key of another type (another library's, or a semaphore's ZSET): no exclusive owner, but held
var_dump($b->owner('list'), $b->isLocked('list'), $b->status('list')['kind']);

// refresh() by token: the default ttl is the instance's, a wrong token changes nothing
var_dump($b->refresh('o', 'wrong-token', 60));
$pt = raw_redis('PTTL', "{$p}o");
echo "untouched: ", var_export($pt > 0 && $pt <= 5000, true), "\n";
var_dump($a->refresh('o', $l->token()));
$pt = raw_redis('PTTL', "{$p}o");
echo "default ttl 9 s: ", var_export($pt > 8500 && $pt <= 9000, true), "\n";
var_dump($b->refresh('o', $l->token(), 2.5));
$pt = raw_redis('PTTL', "{$p}o");
echo "2.5 s: ", var_export($pt > 2000 && $pt <= 2500, true), "\n";
// the owning instance's handle follows a refresh by its own instance
var_dump($a->refresh('o', $l->token(), 20), $l->remainingLifetime() > 19);

// release() by token: wrong token false (key kept), right token true, then false; the handle sees it gone
var_dump($b->release('o', 'wrong-token'), raw_redis('EXISTS', "{$p}o"));
var_dump($b->release('o', $l->token()), raw_redis('EXISTS', "{$p}o"), $b->release('o', $l->token()));
var_dump($l->isAcquired(), $l->release());
var_dump($b->refresh('o', $l->token(), 5));   // gone: false, nothing written
var_dump(raw_redis('EXISTS', "{$p}o"));

// status(): free, held, a waiter counted, a key without a TTL
var_dump($b->status('s'));
$h = $a->lock('s', 4);
$pid = fork_child(function () use ($p) {
    $w = new DistLock(test_uri(), ['prefix' => $p]);
    try { $w->lock('s', 1, 1.5); return 1; } catch (DistLock\LockTimeoutException $e) { return 0; }
});
$seen = 0;
for ($i = 0; $i < 100 && $seen === 0; $i++) { usleep(20000); $seen = $b->status('s')['waiters']; }
$st = $b->status('s');
echo "held: locked=", var_export($st['locked'], true), " ttl in (0, 4]: ", var_export($st['ttl'] > 0 && $st['ttl'] <= 4, true),
     " waiters=", $seen, " keys=", implode(',', array_keys($st)), "\n";
var_dump(wait_child($pid));
raw_redis('SET', "{$p}forever", 'x');
var_dump($b->status('forever')['ttl']);
var_dump(in_array($h->token(), $b->status('s'), true));

// a release by token wakes a blocked waiter at once
$tok = $h->token();
$pid = fork_child(function () use ($p, $tok) {
    $c = new DistLock(test_uri(), ['prefix' => $p]);
    usleep(300000);
    return $c->release('s', $tok) ? 0 : 1;
});
$t0 = microtime(true);
$w = $b->lock('s', 2, 3);
$el = microtime(true) - $t0;
echo "woken: ", var_export($el > 0.2 && $el < 1.5, true), " ", wait_child($pid), "\n";
unset($w);

// argument errors name the argument; the token never appears in a trace
$t = 'SECRET-TOKEN-040';   // captured, so that only the extension's frames could show it
foreach (['release' => fn() => $b->release('', $t), 'refresh' => fn() => $b->refresh('', $t),
          'refresh ttl' => fn() => $b->refresh('x', $t, -1.0), 'release token' => fn() => $b->release('x', ''),
          'refresh token' => fn() => $b->refresh('x', str_repeat('t', 129)),
          'owner' => fn() => $b->owner(''), 'status' => fn() => $b->status(str_repeat('n', 1025))] as $label => $f) {
    try { $f(); echo "$label accepted?!\n"; } catch (ValueError $e) {
        echo "$label: ", $e->getMessage(), str_contains($e->getTraceAsString() . print_r($e->getTrace(), true), 'SECRET-TOKEN-040') ? ' LEAKS' : '', "\n";
    }
}
try { $b->release('x'); } catch (ArgumentCountError $e) { echo get_class($e), "\n"; }
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_040:');
?>
--EXPECT--
NULL
bool(true)
string(20) "not-a-distlock-token"
NULL
bool(true)
string(7) "foreign"
bool(false)
untouched: true
bool(true)
default ttl 9 s: true
bool(true)
2.5 s: true
bool(true)
bool(true)
bool(false)
int(1)
bool(true)
int(0)
bool(false)
bool(false)
bool(false)
bool(false)
int(0)
array(6) {
  ["locked"]=>
  bool(false)
  ["ttl"]=>
  float(0)
  ["waiters"]=>
  int(0)
  ["kind"]=>
  NULL
  ["holders"]=>
  int(0)
  ["permits"]=>
  int(0)
}
held: locked=true ttl in (0, 4]: true waiters=1 keys=locked,ttl,waiters,kind,holders,permits
string(6) "exit=0"
float(INF)
bool(false)
woken: true exit=0
release: DistLock::release(): Argument #1 ($name) must not be empty
refresh: DistLock::refresh(): Argument #1 ($name) must not be empty
refresh ttl: DistLock::refresh(): Argument #3 ($ttl) must be a finite number of seconds greater than 0 and at most 1000000000
release token: DistLock::release(): Argument #2 ($token) must be between 1 and 128 bytes long
refresh token: DistLock::refresh(): Argument #2 ($token) must be between 1 and 128 bytes long
owner: DistLock::owner(): Argument #1 ($name) must not be empty
status: DistLock::status(): Argument #1 ($name) must be at most 1024 bytes long
ArgumentCountError
