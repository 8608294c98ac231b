--TEST--
__call helpers: lock<Resource>, tryLock<Resource>, unlock<Resource> (any case); snake_case names; per-resource defaults
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$d = new DistLock(test_uri(), ['prefix' => 'phpt_031:', 'ttl' => 9,
    'resources' => ['account' => ['ttl' => 4, 'wait' => 0.2], 'course_seat' => ['ttl' => 1.5]]]);
$o = new DistLock(test_uri(), ['prefix' => 'phpt_031:', 'resources' => ['account' => ['ttl' => 4, 'wait' => 0.2]]]);
function pttl(string $k): int { return raw_redis('PTTL', "phpt_031:$k"); }
function in(int $v, int $lo, int $hi): string { return var_export($v > $lo && $v <= $hi, true); }

$a = $d->lockAccount(42);
var_dump(get_class($a), $a->name(), raw_redis('GET', 'phpt_031:account:42') === $a->token());
echo "account ttl 4 from resources: ", in(pttl('account:42'), 3700, 4000), "\n";

// wait from resources: another owner gives up after ~0.2 s
$t = microtime(true);
try { $o->lockAccount(42); echo "acquired?!\n"; } catch (DistLock\LockTimeoutException $e) {
    $el = microtime(true) - $t;
    echo "account wait 0.2 from resources: ", var_export($el >= 0.19 && $el < 1.5, true), "\n";
}
var_dump($o->tryLockAccount(42));
var_dump($o->tryLockAccount('42'));       // int and numeric string ids name the same lock

// unlock<Resource>: owner-checked release by token
var_dump($o->unlockAccount(42, str_repeat('0', 32)), raw_redis('EXISTS', 'phpt_031:account:42'));
var_dump($o->unLockAccount(42, $a->token()));   // any instance may release with the right token
var_dump(raw_redis('EXISTS', 'phpt_031:account:42'));
var_dump($d->unlockAccount(42, $a->token()));   // already gone
var_dump($a->isAcquired());

// snake_case conversion and explicit ttl/wait arguments
$s = $d->lockCourseSeat(7);
var_dump($s->name());
echo "course_seat ttl 1.5 from resources: ", in(pttl('course_seat:7'), 1200, 1500), "\n";
$c = $d->lockCourse('abc', 2.5, 0);
var_dump($c->name());
echo "explicit ttl 2.5 beats defaults: ", in(pttl('course:abc'), 2200, 2500), "\n";
$t = $d->lockTeacher(-3);
var_dump($t->name());
echo "no resources entry: instance ttl 9: ", in(pttl('teacher:-3'), 8700, 9000), "\n";
$x = $d->lockHTTPRequest(1);
var_dump($x->name());
$y = $d->tryLockUserProfilePhoto('u-1', 3);
var_dump($y->name());
echo "tryLock explicit ttl 3: ", in(pttl('user_profile_photo:u-1'), 2700, 3000), "\n";
$z = $d->LOCKAccount(5);                        // prefix matched case-insensitively
var_dump($z->name());
$z2 = $d->trylockaccount(6);
var_dump($z2->name());
$n = $d->lockA("");                             // single-letter resource; empty id is still a valid name
var_dump($n->name());

// unlock helpers of several shapes
var_dump($d->UnlockCourseSeat(7, $s->token()), $d->unLockCourse('abc', $c->token()), $d->unlockTeacher(-3, $t->token()));
foreach ([$x, $y, $z, $z2, $n] as $l) $l->release();
var_dump(raw_redis_del_prefix('phpt_031:'));

// reentrancy through helpers: same instance, same lease
$r1 = $d->lockAccount(9);
$r2 = $d->lockAccount(9);
var_dump($r1->token() === $r2->token());
var_dump($r1->release(), raw_redis('EXISTS', 'phpt_031:account:9'), $r2->release(), raw_redis('EXISTS', 'phpt_031:account:9'));

// ids: large ints, string with NUL
$b = $d->lockAccount(PHP_INT_MAX);
var_dump($b->name());
$b->release();
$b = $d->lockAccount("a\0b");
var_dump($b->name() === "account:a\0b", raw_redis('EXISTS', "phpt_031:account:a\0b"));
$b->release();
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_031:');
?>
--EXPECT--
string(13) "DistLock\Lock"
string(10) "account:42"
bool(true)
account ttl 4 from resources: true
account wait 0.2 from resources: true
NULL
NULL
bool(false)
int(1)
bool(true)
int(0)
bool(false)
bool(false)
string(13) "course_seat:7"
course_seat ttl 1.5 from resources: true
string(10) "course:abc"
explicit ttl 2.5 beats defaults: true
string(10) "teacher:-3"
no resources entry: instance ttl 9: true
string(17) "h_t_t_p_request:1"
string(22) "user_profile_photo:u-1"
tryLock explicit ttl 3: true
string(9) "account:5"
string(9) "account:6"
string(2) "a:"
bool(true)
bool(true)
bool(true)
int(0)
bool(true)
bool(true)
int(1)
bool(true)
int(0)
string(27) "account:9223372036854775807"
bool(true)
int(1)
