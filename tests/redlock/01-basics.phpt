--TEST--
Redlock: a lease over five masters (same token on each), validity, release, refresh, owner, status, isLocked, forceRelease, restore
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_REDLOCK')) die('skip DISTLOCK_TEST_REDLOCK not set'); ?>
--FILE--
<?php
require __DIR__ . '/redlock.inc';
$d = new DistLock(rl_uris(), ['ttl' => 10, 'defer_release' => false]);
$dump = print_r($d, true);
var_dump(substr_count($dump, 'redis://127.0.0.1:'));

$l = $d->tryLock('basic');
var_dump($l instanceof DistLock\Lock);
// The same owner token on every master.
$vals = rl_values('lock:basic');
var_dump(count(array_filter($vals, fn($v) => $v === $l->token())));
// Validity: ttl - elapsed - drift (drift = 10 s * 0.01 + 2 ms = 102 ms).
$left = $l->remainingLifetime();
var_dump($left > 9.5 && $left <= 10 - 0.102);
var_dump($d->isLocked('basic'), $d->owner('basic') === $l->token());
$st = $d->status('basic');
var_dump($st['ttl'] > 9.0 && $st['ttl'] <= 10.0);

// Another instance (another owner) does not get it.
$other = new DistLock(rl_uris(), ['ttl' => 10]);
var_dump($other->tryLock('basic'));

// refresh: every master's PTTL follows.
var_dump($l->refresh(30));
$pttl = rl_node(0)->status('lock:basic')['ttl'];
var_dump($pttl > 29 && $pttl <= 30);
var_dump($l->remainingLifetime() > 29);

// restore() by token, release by name + token.
$token = $l->token();
$r = $other->restore('basic', $token);
var_dump($r->isAcquired());
var_dump($other->release('basic', 'not-the-token'));
var_dump($l->release());
var_dump(rl_values('lock:basic'));
var_dump($d->isLocked('basic'), $d->owner('basic'));
var_dump($l->release());   // already released

// forceRelease removes it everywhere.
$l2 = $other->tryLock('basic');
var_dump($d->forceRelease('basic'));
var_dump(array_filter(rl_values('lock:basic')));
var_dump($l2->release());

// synchronized(); then a lease left to the request-end release, which runs
// after the output below (only that it does not fail is seen here).
var_dump($d->synchronized('sync', fn() => rl_values('lock:sync')[2] !== null));
var_dump($d->isLocked('sync'));
$kept = $d->tryLock('kept');
echo "done\n";
?>
--EXPECT--
int(5)
bool(true)
int(5)
bool(true)
bool(true)
bool(true)
bool(true)
NULL
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
array(5) {
  [0]=>
  NULL
  [1]=>
  NULL
  [2]=>
  NULL
  [3]=>
  NULL
  [4]=>
  NULL
}
bool(false)
NULL
bool(false)
bool(true)
array(0) {
}
bool(false)
bool(true)
bool(false)
done
