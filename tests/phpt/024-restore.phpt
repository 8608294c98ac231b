--TEST--
restore(): adopt a lease by token; wrong token is LockLostException; bad token is ValueError
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$a = new DistLock(test_uri(), ['prefix' => 'phpt_024:']);
$b = new DistLock(test_uri(), ['prefix' => 'phpt_024:', 'ttl' => 7]);

$la = $a->lock('job', 3);
$token = $la->token();
$r = $b->restore('job', $token);
var_dump(get_class($r), $r->name(), $r->token() === $token, $r->isAcquired());
$rl = $r->remainingLifetime();
echo "remaining 0 < x <= 3: ", var_export($rl > 0 && $rl <= 3, true), "\n";
var_dump(raw_redis('GET', 'phpt_024:job') === $token);       // restore itself writes nothing
var_dump($r->refresh());
$p = raw_redis('PTTL', 'phpt_024:job');
echo "refresh() of an adopted lease uses the instance default ttl 7: ", var_export($p > 6700 && $p <= 7000, true), "\n";
var_dump($r->release(), raw_redis('EXISTS', 'phpt_024:job'));
var_dump($la->release());                                    // the original handle sees it gone

// wrong token, absent name, expired lease
$la = $a->lock('job', 3);
foreach (['wrong token' => fn() => $b->restore('job', str_repeat('0', 32)),
          'token of another name' => fn() => $b->restore('other', $la->token()),
          'token prefix' => fn() => $b->restore('job', substr($la->token(), 0, 31)),
          'uppercase token' => fn() => $b->restore('job', strtoupper($la->token()) === $la->token() ? 'x' : strtoupper($la->token()))] as $label => $f) {
    try {
        $f();
        echo "$label: restored?!\n";
    } catch (DistLock\LockLostException $e) {
        echo "$label: LockLostException", str_contains($e->getMessage(), $la->token()) ? ' LEAKS TOKEN' : '', "\n";
    }
}
var_dump(raw_redis('GET', 'phpt_024:job') === $la->token());   // untouched
var_dump(is_subclass_of('DistLock\LockLostException', 'DistLock\Exception'));

// the same instance restores its own lease: fine, same token
$own = $a->restore('job', $la->token());
var_dump($own->token() === $la->token());
var_dump($own->release(), $la->release());
var_dump(raw_redis('EXISTS', 'phpt_024:job'));

$e = $a->lock('exp', 0.05);
$tok = $e->token();
usleep(120000);
try { $b->restore('exp', $tok); echo "restored?!\n"; } catch (DistLock\LockLostException $ex) { echo "expired: LockLostException\n"; }

// a foreign value (not ours) with the same length
raw_redis('SET', 'phpt_024:foreign', str_repeat('f', 32), 'PX', 5000);
$f = $b->restore('foreign', str_repeat('f', 32));   // any holder's token can be adopted: that is the point
var_dump($f->release(), raw_redis('EXISTS', 'phpt_024:foreign'));

// bad tokens and names
foreach (['' => '', '129 bytes' => str_repeat('a', 129)] as $label => $t) {
    try { $b->restore('job', $t); echo "accepted?!\n"; } catch (ValueError $e) {
        echo "token $label: ValueError", str_contains($e->getMessage(), '($token)') ? ' ($token)' : ': ' . $e->getMessage(), "\n";
    }
}
$l = $a->lock('long', 2);
raw_redis('SET', 'phpt_024:long', str_repeat('t', 128), 'PX', 2000);
$r = $b->restore('long', str_repeat('t', 128));         // 128 bytes is the maximum
var_dump($r->token() === str_repeat('t', 128), $r->release());
try { $b->restore('', 'abc'); } catch (ValueError $e) { echo "name '': ValueError\n"; }
try { $b->restore('job'); } catch (ArgumentCountError $e) { echo "ArgumentCountError\n"; }
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_024:');
?>
--EXPECT--
string(13) "DistLock\Lock"
string(3) "job"
bool(true)
bool(true)
remaining 0 < x <= 3: true
bool(true)
bool(true)
refresh() of an adopted lease uses the instance default ttl 7: true
bool(true)
int(0)
bool(false)
wrong token: LockLostException
token of another name: LockLostException
token prefix: LockLostException
uppercase token: LockLostException
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
expired: LockLostException
bool(true)
int(0)
token : ValueError ($token)
token 129 bytes: ValueError ($token)
bool(true)
bool(true)
name '': ValueError
ArgumentCountError
