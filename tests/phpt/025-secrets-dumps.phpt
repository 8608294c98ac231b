--TEST--
Secrets: var_dump, print_r, var_export, debug_zval_dump, json_encode, (array) casts never show the password or a token
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$port = free_port();
$objs = [
    'uri user:password' => new DistLock("redis://user:hunter2@127.0.0.1:$port/"),
    'uri :password' => new DistLock("redis://:hunter2@127.0.0.1:$port/2?timeout=1"),
    'uri percent-encoded' => new DistLock("redis://user:hunt%65r2@127.0.0.1:$port"),
    'options password' => new DistLock("redis://127.0.0.1:$port", ['password' => 'hunter2']),
    'options username+password' => new DistLock("redis://127.0.0.1:$port", ['username' => 'bob', 'password' => 'hunter2']),
    'list' => new DistLock(["redis://user:hunter2@127.0.0.1:$port"]),
];
foreach ($objs as $label => $d) {
    $out = [];
    ob_start(); var_dump($d); $out['var_dump'] = ob_get_clean();
    $out['print_r'] = print_r($d, true);
    $out['var_export'] = var_export($d, true);
    ob_start(); debug_zval_dump($d); $out['debug_zval_dump'] = ob_get_clean();
    $out['json'] = json_encode($d);
    $out['array cast'] = print_r((array)$d, true);
    $out['get_object_vars'] = print_r(get_object_vars($d), true);
    $out['serialize attempt'] = (function () use ($d) { try { return serialize($d); } catch (Throwable $e) { return $e->getMessage(); } })();
    $leaks = [];
    foreach ($out as $how => $s) {
        if (str_contains($s, 'hunter2')) $leaks[] = $how;
    }
    echo "$label: ", $leaks ? 'LEAKS via ' . implode(', ', $leaks) : 'clean', "\n";
}
// what the dump does show: the server with user info masked
var_dump($objs['uri user:password']);
var_dump($objs['options password']);

// Lock dumps do not show the token
$d = new DistLock(test_uri(), ['prefix' => 'phpt_025:']);
$l = $d->lock('t', 5);
$tok = $l->token();
$out = [];
ob_start(); var_dump($l); $out[] = ob_get_clean();
$out[] = print_r($l, true);
$out[] = var_export($l, true);
ob_start(); debug_zval_dump($l); $out[] = ob_get_clean();
$out[] = json_encode($l);
$out[] = print_r((array)$l, true);
ob_start(); var_dump($d); $out[] = ob_get_clean();
echo "lock dumps show the token: ", var_export(str_contains(implode('', $out), $tok), true), "\n";
var_dump($l);
$l->release();
var_dump($l);
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_025:');
?>
--EXPECTF--
uri user:password: clean
uri :password: clean
uri percent-encoded: clean
options password: clean
options username+password: clean
list: clean
object(DistLock)#%d (%d) {
  ["server"]=>
  string(%d) "redis://***@127.0.0.1:%d%S"%A
}
object(DistLock)#%d (%d) {
  ["server"]=>
  string(%d) "redis://%A127.0.0.1:%d%S"%A
}
lock dumps show the token: false
object(DistLock\Lock)#%d (%d) {
  ["name"]=>
  string(1) "t"
  ["held"]=>
  bool(true)%A
}
object(DistLock\Lock)#%d (%d) {
  ["name"]=>
  string(1) "t"
  ["held"]=>
  bool(false)%A
}
