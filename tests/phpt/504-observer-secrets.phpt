--TEST--
Observer: no password, user name or owner token in any event, its dumps or its error message (AUTH server; right and wrong passwords)
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
$port = (int)env_or_fail('DISTLOCK_TEST_REDIS_AUTH_PORT');
$pw = env_or_fail('DISTLOCK_TEST_REDIS_PASSWORD');
$raw = RawConn::auth();
$raw->cmd('ACL', 'DELUSER', 'phpt_504_user');
$raw->cmd('ACL', 'SETUSER', 'phpt_504_user', 'on', '>phpt-504-Pa55', '~*', '+@all');
$events = [];
DistLock::addObserver(function (DistLock\Event $e) use (&$events) { $events[] = $e; });

$tokens = [];
$clients = [
    'uri password' => new DistLock(env_or_fail('DISTLOCK_TEST_REDIS_AUTH'), ['prefix' => 'phpt_504:', 'fencing' => true]),
    'option password' => new DistLock("redis://127.0.0.1:$port", ['prefix' => 'phpt_504:', 'password' => $pw]),
    'acl user' => new DistLock('redis://phpt_504_user:' . rawurlencode('phpt-504-Pa55') . "@127.0.0.1:$port", ['prefix' => 'phpt_504:']),
    'wrong password' => new DistLock("redis://127.0.0.1:$port", ['prefix' => 'phpt_504:', 'password' => 'WRONG-phpt-504']),
    'wrong user' => new DistLock('redis://phpt_504_user:bad-phpt-504@127.0.0.1:' . $port, ['prefix' => 'phpt_504:']),
];
foreach ($clients as $label => $d) {
    try {
        $l = $d->lock('s', 5, 0, 'caller-token-phpt-504');
        $tokens[] = $l->token();
        $l->refresh();
        $l->release();
        $t = $d->lock('t', 5);
        $tokens[] = $t->token();
        unset($t);
        $d->tryLock('u')?->release();
    } catch (DistLock\ConnectionException $x) {
        echo "$label: ", get_class($x), "\n";
    }
}
DistLock::endRequest();
$dump = '';
foreach ($events as $e) {
    ob_start();
    var_dump($e);
    print_r($e);
    var_export($e);
    $dump .= ob_get_clean() . json_encode($e) . serialize(get_object_vars($e));
}
echo count($events) >= 10 ? "events: many\n" : "events: " . count($events) . "\n";
$leaks = [];
foreach (array_merge([$pw, 'phpt-504-Pa55', 'phpt_504_user', 'WRONG-phpt-504', 'bad-phpt-504', 'caller-token-phpt-504'], $tokens) as $secret) {
    if ($secret !== '' && str_contains($dump, $secret)) $leaks[] = $secret === $pw ? 'the password' : $secret;
}
echo "secrets in events and dumps: ", $leaks ? implode(', ', $leaks) : 'none', "\n";
$errors = array_filter($events, fn($e) => $e->outcome === 'error');
echo "error events: ", count($errors), ", each with a message: ", var_export(array_reduce($errors, fn($c, $e) => $c && is_string($e->error) && $e->error !== '', true), true), "\n";
$servers = array_unique(array_filter(array_map(fn($e) => $e->server, $events)));
echo "servers named: ", implode(' ', $servers) === "127.0.0.1:$port" ? "127.0.0.1:PORT only" : implode(' ', $servers), "\n";
$raw->cmd('ACL', 'DELUSER', 'phpt_504_user');
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
try {
    $raw = RawConn::auth();
    $raw->cmd('ACL', 'DELUSER', 'phpt_504_user');
    foreach (['s', 't', 'u'] as $k) $raw->cmd('DEL', "phpt_504:$k");
} catch (Throwable $e) {
}
?>
--EXPECT--
wrong password: DistLock\ConnectionException
wrong user: DistLock\ConnectionException
events: many
secrets in events and dumps: none
error events: 2, each with a message: true
servers named: 127.0.0.1:PORT only
