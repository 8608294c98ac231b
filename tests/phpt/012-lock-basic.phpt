--TEST--
lock(): returns a Lock; name(), token() (32 lowercase hex, distinct), key holds the token with a TTL; release()
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$d = new DistLock(test_uri(), ['prefix' => 'phpt_012:']);
var_dump($d->isLocked('a'));
$l = $d->lock('a', 5);
var_dump(get_class($l), $l->name());
$tok = $l->token();
var_dump(strlen($tok), (bool)preg_match('/^[0-9a-f]{32}$/', $tok));
var_dump($l->token() === $tok);                      // stable per handle
var_dump(raw_redis('GET', 'phpt_012:a') === $tok);  // the key holds exactly the token
$pttl = raw_redis('PTTL', 'phpt_012:a');
var_dump($pttl > 4500 && $pttl <= 5000);
var_dump($d->isLocked('a'), $l->isAcquired(), $l->fencingToken());

// tokens are distinct across grants (names and instances)
$tokens = [$tok];
for ($i = 0; $i < 20; $i++) {
    $x = $d->lock("t$i", 5);
    $tokens[] = $x->token();
    $x->release();
}
$d2 = new DistLock(test_uri(), ['prefix' => 'phpt_012:']);
$y = $d2->tryLock('other');
$tokens[] = $y->token();
$y->release();
echo "distinct tokens: ", count(array_unique($tokens)), " of ", count($tokens), "\n";
foreach ($tokens as $t) if (!preg_match('/^[0-9a-f]{32}$/', $t)) echo "bad token $t\n";

// release: true once, then false (idempotent); key gone
var_dump($l->release(), raw_redis('EXISTS', 'phpt_012:a'), $d->isLocked('a'));
var_dump($l->release(), $l->release(), $l->isAcquired(), $l->remainingLifetime());
// the name is free again, for anyone
$l2 = $d2->tryLock('a');
var_dump($l2 !== null && $l2->token() !== $tok);
var_dump($l2->release());
// a lock after release of the same name by the same instance is a fresh grant
$l3 = $d->lock('a', 5);
var_dump($l3->token() !== $tok, $l3->release());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_012:');
?>
--EXPECT--
bool(false)
string(13) "DistLock\Lock"
string(1) "a"
int(32)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
NULL
distinct tokens: 22 of 22
bool(true)
int(0)
bool(false)
bool(false)
bool(false)
bool(false)
float(0)
bool(true)
bool(true)
bool(true)
bool(true)
