--TEST--
new DistLock(): every option is accepted and takes effect
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$uri = test_uri();

// all options at once are accepted
$d = new DistLock($uri, [
    'prefix' => 'phpt_004:', 'ttl' => 1.5, 'wait' => 0.2, 'retry_delay' => 0.01,
    'retry_jitter' => 0.0, 'connect_timeout' => 0.5, 'timeout' => 0.5,
    'database' => 0, 'resources' => ['account' => ['ttl' => 4, 'wait' => 2], 'course_seat' => ['ttl' => 0.75]],
]);
echo "all options: ok\n";

// prefix: the key is prefix . name
$l = $d->lock('p');
var_dump(raw_redis('GET', 'phpt_004:p') === $l->token());

// ttl: default lease
$pttl = raw_redis('PTTL', 'phpt_004:p');
echo "ttl default in (1200,1500]: ", var_export($pttl > 1200 && $pttl <= 1500, true), "\n";

// wait: a second owner gives up after about 0.2 s
$other = new DistLock($uri, ['prefix' => 'phpt_004:', 'wait' => 0.2]);
$t = microtime(true);
try {
    $other->lock('p');
    echo "no timeout\n";
} catch (DistLock\LockTimeoutException $e) {
    $el = microtime(true) - $t;
    echo "wait 0.2: LockTimeoutException after >= 0.19 s: ", var_export($el >= 0.19, true), ", < 1.5 s: ", var_export($el < 1.5, true), "\n";
}

// retry_delay: waiters block on BLPOP; only when the server refuses BLPOP (here an ACL
// user without it) do they poll, and then a large base delay means few attempts
raw_redis('ACL', 'SETUSER', 'phpt_004_noblpop', 'on', '>pw004', '~*', '+@all', '-blpop');
$noblpop = str_replace('redis://', 'redis://phpt_004_noblpop:pw004@', $uri);
$slow = new DistLock($noblpop, ['prefix' => 'phpt_004:', 'retry_delay' => 0.2, 'retry_jitter' => 0.0]);
$before = $slow->stats()['contended'];
try { $slow->lock('p', null, 0.3); } catch (DistLock\LockTimeoutException $e) {}
$slowAttempts = $slow->stats()['contended'] - $before;
$fast = new DistLock($noblpop, ['prefix' => 'phpt_004:', 'retry_delay' => 0.001, 'retry_jitter' => 0.0]);
$before = $fast->stats()['contended'];
try { $fast->lock('p', null, 0.3); } catch (DistLock\LockTimeoutException $e) {}
$fastAttempts = $fast->stats()['contended'] - $before;
echo "retry_delay 0.2: 1..4 attempts: ", var_export($slowAttempts >= 1 && $slowAttempts <= 4, true), "\n";
echo "retry_delay 0.001: more attempts than with 0.2: ", var_export($fastAttempts > $slowAttempts, true), "\n";
// with BLPOP allowed the same wait is one attempt plus one block, whatever retry_delay says
$blocking = new DistLock($uri, ['prefix' => 'phpt_004:', 'retry_delay' => 0.001, 'retry_jitter' => 0.0]);
$before = $blocking->stats()['contended'];
try { $blocking->lock('p', null, 0.3); } catch (DistLock\LockTimeoutException $e) {}
echo "blocking waiter: 1 or 2 attempts: ", var_export(in_array($blocking->stats()['contended'] - $before, [1, 2], true), true), "\n";
$l->release();

// database: the key lands in the chosen database (URI without /db)
$db = new DistLock($uri, ['prefix' => 'phpt_004:', 'database' => 9]);
$l9 = $db->lock('db');
var_dump(raw_redis('EXISTS', 'phpt_004:db'));
raw_redis('SELECT', 9);
var_dump(raw_redis('GET', 'phpt_004:db') === $l9->token());
raw_redis('SELECT', 0);
var_dump($l9->release());

// resources: per-helper defaults
$la = $d->lockAccount(42);
$pttl = raw_redis('PTTL', 'phpt_004:account:42');
echo "resources account ttl 4: ", var_export($pttl > 3700 && $pttl <= 4000, true), "\n";
$ls = $d->lockCourseSeat(7);
$pttl = raw_redis('PTTL', 'phpt_004:course_seat:7');
echo "resources course_seat ttl 0.75: ", var_export($pttl > 450 && $pttl <= 750, true), "\n";
$lo = $d->lockOther(1);
$pttl = raw_redis('PTTL', 'phpt_004:other:1');
echo "other resource uses the instance ttl 1.5: ", var_export($pttl > 1200 && $pttl <= 1500, true), "\n";
var_dump($la->release(), $ls->release(), $lo->release());

// username/password: sent with AUTH on connect; this server has no such user
$auth = new DistLock($uri, ['prefix' => 'phpt_004:', 'username' => 'phpt_nobody', 'password' => 'x-secret-x']);
try {
    $auth->lock('auth');
    echo "auth: no exception\n";
} catch (DistLock\ConnectionException $e) {
    echo "auth: ConnectionException, password shown: ", var_export(str_contains($e->getMessage(), 'x-secret-x'), true), "\n";
}
var_dump(raw_redis('EXISTS', 'phpt_004:auth'));
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_004:');
raw_redis('ACL', 'DELUSER', 'phpt_004_noblpop');
raw_redis('SELECT', 9);
raw_redis_del_prefix('phpt_004:');
?>
--EXPECT--
all options: ok
bool(true)
ttl default in (1200,1500]: true
wait 0.2: LockTimeoutException after >= 0.19 s: true, < 1.5 s: true
retry_delay 0.2: 1..4 attempts: true
retry_delay 0.001: more attempts than with 0.2: true
blocking waiter: 1 or 2 attempts: true
int(0)
bool(true)
bool(true)
resources account ttl 4: true
resources course_seat ttl 0.75: true
other resource uses the instance ttl 1.5: true
bool(true)
bool(true)
bool(true)
auth: ConnectionException, password shown: false
int(0)
