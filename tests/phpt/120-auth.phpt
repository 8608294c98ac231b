--TEST--
AUTH: password in the URI or in options, ACL users, wrong or missing password is a ConnectionException that does not leak the password
--EXTENSIONS--
distlock
--SKIPIF--
<?php
require __DIR__ . '/inc/skipif.inc';
foreach (['DISTLOCK_TEST_REDIS_AUTH', 'DISTLOCK_TEST_REDIS_AUTH_PORT', 'DISTLOCK_TEST_REDIS_PASSWORD'] as $v) {
    if ((string)getenv($v) === '') die("skip $v is not set");
}
?>
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$prefix = 'phpt_120:';
$port = (int)env_or_fail('DISTLOCK_TEST_REDIS_AUTH_PORT');
$pw = env_or_fail('DISTLOCK_TEST_REDIS_PASSWORD');
$raw = RawConn::auth();
$raw->cmd('ACL', 'DELUSER', 'phpt_user', 'phpt_user2');
var_dump($raw->cmd('ACL', 'SETUSER', 'phpt_user', 'on', '>pw', '~*', '+@all'));
var_dump($raw->cmd('ACL', 'SETUSER', 'phpt_user2', 'on', '>p@ss:w/rd%', '~*', '+@all'));

function attempt(string $label, $servers, array $options = []): void {
    global $raw, $prefix, $port;
    try {
        $dl = new DistLock($servers, $options + ['prefix' => $prefix]);
        $l = $dl->tryLock($label, 30);
        $ok = $l !== null && $raw->cmd('GET', $prefix . $label) === $l->token();
        echo "$label: locked=", (int)$ok, " released=", (int)($l !== null && $l->release()),
             " gone=", (int)($raw->cmd('EXISTS', $prefix . $label) === 0), "\n";
    } catch (Throwable $e) {
        $m = $e->getMessage();
        // a rejected password names the server; a missing one shows Redis's NOAUTH
        printf("%s: %s %s leaks_secret=%d mentions_auth=%d\n", $label, get_class($e),
            $label === 'missing' ? 'noauth=' . (int)str_contains($m, 'NOAUTH')
                                 : 'names_endpoint=' . (int)str_contains($m, "127.0.0.1:$port"),
            (int)(str_contains($m, 'WRONGpass') || str_contains($m, 'pw-bad') || str_contains($m, 'p@ss')),
            (int)(stripos($m, 'auth') !== false || stripos($m, 'password') !== false));
    }
}

attempt('uri', env_or_fail('DISTLOCK_TEST_REDIS_AUTH'));
attempt('wrong', "redis://:WRONGpass@127.0.0.1:$port");
attempt('missing', "redis://127.0.0.1:$port");
attempt('option', "redis://127.0.0.1:$port", ['password' => $pw]);
attempt('option_wrong', "redis://127.0.0.1:$port", ['password' => 'WRONGpass']);
attempt('uri_beats_option', env_or_fail('DISTLOCK_TEST_REDIS_AUTH'), ['password' => 'WRONGpass']);
attempt('acl_uri', "redis://phpt_user:pw@127.0.0.1:$port");
attempt('acl_options', "redis://127.0.0.1:$port", ['username' => 'phpt_user', 'password' => 'pw']);
attempt('acl_wrong', "redis://phpt_user:pw-bad@127.0.0.1:$port");
attempt('acl_percent', 'redis://phpt_user2:' . rawurlencode('p@ss:w/rd%') . "@127.0.0.1:$port");

// a failed AUTH is not reported as "not acquired" by lock() either, and the instance recovers
// once nothing is wrong any more: a new instance with the right password works after failures
$bad = new DistLock("redis://:WRONGpass@127.0.0.1:$port", ['prefix' => $prefix]);
for ($i = 0; $i < 3; $i++) {
    try { $bad->lock('loop', 1, 0.1); echo "BAD: no exception\n"; }
    catch (DistLock\ConnectionException $e) { echo "lock() attempt $i: ConnectionException\n"; }
}
attempt('after_failures', env_or_fail('DISTLOCK_TEST_REDIS_AUTH'));
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
$raw = RawConn::auth();
$raw->cmd('ACL', 'DELUSER', 'phpt_user', 'phpt_user2');
foreach (($raw->cmd('KEYS', 'phpt_120:*') ?: []) as $k) { $raw->cmd('DEL', $k); }
?>
--EXPECT--
string(2) "OK"
string(2) "OK"
uri: locked=1 released=1 gone=1
wrong: DistLock\ConnectionException names_endpoint=1 leaks_secret=0 mentions_auth=1
missing: DistLock\ConnectionException noauth=1 leaks_secret=0 mentions_auth=1
option: locked=1 released=1 gone=1
option_wrong: DistLock\ConnectionException names_endpoint=1 leaks_secret=0 mentions_auth=1
uri_beats_option: locked=1 released=1 gone=1
acl_uri: locked=1 released=1 gone=1
acl_options: locked=1 released=1 gone=1
acl_wrong: DistLock\ConnectionException names_endpoint=1 leaks_secret=0 mentions_auth=1
acl_percent: locked=1 released=1 gone=1
lock() attempt 0: ConnectionException
lock() attempt 1: ConnectionException
lock() attempt 2: ConnectionException
after_failures: locked=1 released=1 gone=1
