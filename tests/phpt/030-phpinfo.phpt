--TEST--
phpinfo(): a distlock section with version, hiredis version, TLS support, counters, settings, and no secrets
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
distlock.prefix=phpt_030:
distlock.ttl=12.5
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$d = new DistLock(preg_replace('~^redis://~', 'redis://:hunter2@', 'redis://127.0.0.1:1'), ['password' => 'hunter2']);
$ok = new DistLock(test_uri());
$ok->lock('x', 5)->release();
ob_start();
phpinfo(INFO_MODULES);
$info = ob_get_clean();
var_dump(str_contains($info, 'hunter2'));
if (!preg_match('/\ndistlock\n\n(.*?\nDirective => .*?)\n\n/s', $info, $m)) {
    echo "no distlock section\n";
    exit;
}
$section = $m[1];
// the version shown is the extension's version
var_dump(str_contains($section, "Version => " . phpversion('distlock')));
// hiredis version: a real version number
var_dump((bool)preg_match('/^hiredis version => \d+\.\d+\.\d+/mi', $section));
// the counters shown are the ones stats() returns
$s = $ok->stats();
var_dump($s['acquired'] >= 1 && str_contains($section, "acquired => {$s['acquired']}\n"));
var_dump(str_contains($section, "released => {$s['released']}\n"));
// every counter of stats() has its row, and no other counter is shown
preg_match_all('/^([a-z_]+) => (\d+)$/m', $section, $rows);
echo "rows: ", implode(' ', $rows[1]), "\n";
var_dump($rows[1] === array_keys($s));
echo $section, "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_030:');
?>
--EXPECTF--
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
rows: acquired contended timeouts released lost refreshed wait_time_us connection_errors native_releases native_fallbacks observer_errors renewals renewal_round_trips deadlocks
bool(true)
distlock support => enabled
Version => %d.%d.%s
hiredis version => %d.%d.%d
TLS support => %s
%A
Directive => Local Value => Master Value
distlock.connect_timeout => 1 => 1
distlock.defer_release => On => On
distlock.prefix => phpt_030: => phpt_030:
distlock.retry_delay => 0.005 => 0.005
distlock.retry_jitter => 0.005 => 0.005
distlock.timeout => 1 => 1
distlock.ttl => 12.5 => 12.5
distlock.wait => 10 => 10
