--TEST--
URI: tcp://host:port (phpredis's spelling) is accepted as redis://; another scheme's error names the ones that work
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
[$host, $port] = test_host_port();
$d = new DistLock("tcp://$host:$port", ['prefix' => 'phpt_045:']);
$l = $d->tryLock('a', 5);
echo "locked through tcp://: ", var_export($l instanceof DistLock\Lock && raw_redis('GET', 'phpt_045:a') === $l->token(), true), "\n";
$l->release();
try { new DistLock("ftp://$host:$port"); } catch (ValueError $e) { echo $e->getMessage(), "\n"; }
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_045:');
?>
--EXPECT--
locked through tcp://: true
DistLock::__construct(): Argument #1 ($servers) must be a valid server URI: the server URI must start with redis:// (or tcp://), rediss:// or unix://
