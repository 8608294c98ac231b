--TEST--
stats()['native_releases'] counts each release once by how it went (issue 45.3): release(), by token, at destruction (confirmed, and deferred where scripting is denied), endRequest()'s one pipeline, with scripting allowed and denied; the request-end sweep (PHP's built-in web server, one process); a deferred release (a script) and Redlock's (a script on each master) count none; a server without DELEX/DELIFEQ counts none
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/proc.inc';
$port = start_test_redis('049');
$raw = RawConn::tcp('127.0.0.1', $port);
$native = server_native_del();                // 'delex', 'delifeq' or ''
$p = 'p049:';
$acl = ['on', '>pw049', 'resetkeys', "~{$p}*", 'resetchannels', '-@all', '+set', '+get', '+del', '+exists', '+pttl',
    '+pexpire', '+blpop', '+rpush', '+ltrim', '+zadd', '+zrem', '+zcard', '+zscore', '+multi', '+exec', '+watch', '+unwatch'];
if ($native !== '') $acl[] = "+$native";
$raw->cmd('ACL', 'SETUSER', 'noscript', ...$acl);

// One release on each path; what native_releases and released moved by.
function moved(callable $path): array {
    static $s = null;
    $s ??= new DistLock("redis://127.0.0.1:1");   // stats() is per process: any instance tells
    $a = $s->stats();
    $path();
    $b = $s->stats();
    return [$b['native_releases'] - $a['native_releases'], $b['released'] - $a['released']];
}
$paths = fn (string $uri) => [
    'release()' => fn () => (new DistLock($uri, ['prefix' => 'p049:']))->tryLock('a', 5)->release(),
    'by token' => function () use ($uri) {
        $d = new DistLock($uri, ['prefix' => 'p049:']);
        $t = $d->tryLock('a', 5)->detach();
        $d->release('a', $t);
    },
    'destruction, confirmed' => function () use ($uri) {
        $d = new DistLock($uri, ['prefix' => 'p049:', 'defer_release' => false]);
        $l = $d->tryLock('a', 5);
        unset($l);
    },
    'destruction, deferred' => function () use ($uri) {
        $d = new DistLock($uri, ['prefix' => 'p049:', 'defer_release' => true]);
        $l = $d->tryLock('a', 5);
        unset($l);
        $d->isLocked('a');                    // the deferred reply is read before this call
    },
    'endRequest(), 3 leases' => function () use ($uri) {
        $d = new DistLock($uri, ['prefix' => 'p049:']);
        $keep = [$d->tryLock('a', 5), $d->tryLock('b', 5), $d->tryLock('c', 5)];
        $d->endRequest();
    },
];
foreach (['scripting allowed' => "redis://127.0.0.1:$port", 'scripting denied' => "redis://noscript:pw049@127.0.0.1:$port"] as $who => $uri) {
    if ($who === 'scripting denied' && $native === '') {
        // no lock can be taken there (phpt 047, 048): refused, nothing counted
        try {
            (new DistLock($uri, ['prefix' => 'p049:']))->tryLock('a', 5);
            echo "scripting denied: a lock was taken\n";
        } catch (DistLock\PermissionException $e) {
            echo "scripting denied: no lock can be taken here (no DELEX or DELIFEQ)\n";
        }
        continue;
    }
    foreach ($paths($uri) as $what => $path) {
        [$nat, $rel] = moved($path);
        $n = $what === 'endRequest(), 3 leases' ? 3 : 1;
        // A deferred release is the script (written, not awaited), where it may run;
        // where scripting is denied it is made at once, natively.
        $expectNat = $native === '' || ($what === 'destruction, deferred' && $who === 'scripting allowed') ? 0 : $n;
        // released counts confirmed releases; a deferred one once its reply is read
        $ok = $nat === $expectNat && $rel === $n;
        echo "$who, $what: ", $ok ? 'ok' : "native_releases +$nat (expected +$expectNat), released +$rel (expected +$n)", "\n";
    }
}

// The request-end sweep: leases a request leaves held are released when it
// ends. The counters are per process, so the requests go to one process that
// serves many: PHP's built-in web server, with this extension loaded.
$so = null;
foreach (file('/proc/self/maps') ?: [] as $line) {
    if (preg_match('~\s(/\S*distlock\.so)$~', trim($line), $mm)) { $so = $mm[1]; break; }
}
if ($so === null) {
    echo "request-end sweep: distlock.so not found in /proc/self/maps (a static build?)\n";
}
$web = free_port();
$docroot = sys_get_temp_dir() . '/phpt_049_web_' . getmypid();
@mkdir($docroot);
file_put_contents("$docroot/index.php", '<?php
$d = new DistLock("redis://127.0.0.1:' . $port . '", ["prefix" => "p049:sweep:"]);
if ($_SERVER["REQUEST_URI"] === "/take") { $GLOBALS["keep"] = [$d->tryLock("a", 5), $d->tryLock("b", 5), $d->tryLock("c", 5)]; echo "taken"; }
else echo json_encode($d->stats());
');
// one process serves every request (PHP_CLI_SERVER_WORKERS unset): the counters are its
$env = array_diff_key(getenv(), ['PHP_CLI_SERVER_WORKERS' => 1]);
$server = proc_open([PHP_BINARY, '-n', '-d', "extension=$so", '-S', "127.0.0.1:$web", '-t', $docroot],
    [1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes, null, $env);
register_shutdown_function(function () use (&$server, $docroot) {
    if (is_resource($server)) { proc_terminate($server); proc_close($server); }
    array_map('unlink', glob("$docroot/*") ?: []);
    @rmdir($docroot);
});
$get = function (string $path) use ($web): ?string {
    for ($i = 0; $i < 200; $i++) {
        $r = @file_get_contents("http://127.0.0.1:$web$path");
        if ($r !== false) return $r;
        usleep(25000);
    }
    return null;
};
$before = json_decode((string)$get('/stats'), true);
$taken = $get('/take');
$after = json_decode((string)$get('/stats'), true);
proc_terminate($server);
proc_close($server);
$nat = ($after['native_releases'] ?? -1) - ($before['native_releases'] ?? 0);
$rel = ($after['released'] ?? -1) - ($before['released'] ?? 0);
$expectNat = $native === '' ? 0 : 3;
echo "request-end sweep, 3 leases: ", $taken === 'taken' && $nat === $expectNat && $rel === 3 ? 'ok'
    : "taken: " . var_export($taken, true) . ", native_releases +$nat (expected +$expectNat), released +$rel (expected +3)", "\n";

// Redlock: a script on each master; counted released once, native none.
$ports = [start_test_redis('049'), start_test_redis('049'), start_test_redis('049')];
$uris = array_map(fn ($q) => "redis://127.0.0.1:$q", $ports);
[$nat, $rel] = moved(fn () => (new DistLock($uris, ['prefix' => 'p049:']))->tryLock('r', 5)->release());
echo "Redlock release(): ", $nat === 0 && $rel === 1 ? 'ok' : "native_releases +$nat, released +$rel", "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/proc.inc';
stop_test_redis_all('049');
?>
--EXPECTREGEX--
(scripting allowed, release\(\): ok
scripting allowed, by token: ok
scripting allowed, destruction, confirmed: ok
scripting allowed, destruction, deferred: ok
scripting allowed, endRequest\(\), 3 leases: ok
(scripting denied, release\(\): ok
scripting denied, by token: ok
scripting denied, destruction, confirmed: ok
scripting denied, destruction, deferred: ok
scripting denied, endRequest\(\), 3 leases: ok
|scripting denied: no lock can be taken here \(no DELEX or DELIFEQ\)
)request-end sweep, 3 leases: ok
Redlock release\(\): ok)
