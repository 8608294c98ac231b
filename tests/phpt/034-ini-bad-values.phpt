--TEST--
INI: out-of-range and non-numeric distlock.* values are refused by ini_set() and the old value stays
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
// bad values are refused (ini_set returns false) and the old value stays
foreach ([['ttl', '-1'], ['ttl', '0'], ['ttl', 'abc'], ['ttl', 'INF'], ['ttl', '2000000000'], ['wait', '-1'], ['wait', 'NAN'], ['wait', 'soon'], ['retry_jitter', 'abc'],
          ['timeout', '0'], ['connect_timeout', '-5'], ['retry_delay', '61'], ['retry_jitter', '-1'], ['prefix', str_repeat('p', 257)]] as [$k, $v]) {
    $old = ini_get("distlock.$k");
    $r = @ini_set("distlock.$k", $v);
    echo "distlock.$k=", strlen($v) > 20 ? substr($v, 0, 20) . '...' : $v, ": ", $r === false ? 'refused' : 'ACCEPTED', ", unchanged: ", var_export(ini_get("distlock.$k") === $old, true), "\n";
}

// a refused value never reaches new instances
$d = new DistLock('redis://127.0.0.1:6379');
var_dump($d);
?>
--EXPECTF--
distlock.ttl=-1: refused, unchanged: true
distlock.ttl=0: refused, unchanged: true
distlock.ttl=abc: refused, unchanged: true
distlock.ttl=INF: refused, unchanged: true
distlock.ttl=2000000000: refused, unchanged: true
distlock.wait=-1: refused, unchanged: true
distlock.wait=NAN: refused, unchanged: true
distlock.wait=soon: refused, unchanged: true
distlock.retry_jitter=abc: refused, unchanged: true
distlock.timeout=0: refused, unchanged: true
distlock.connect_timeout=-5: refused, unchanged: true
distlock.retry_delay=61: refused, unchanged: true
distlock.retry_jitter=-1: refused, unchanged: true
distlock.prefix=pppppppppppppppppppp...: refused, unchanged: true
object(DistLock)#%d (%d) {
  ["server"]=>
  string(%d) "redis://127.0.0.1:6379%S"
  ["prefix"]=>
  string(5) "lock:"
  ["ttl"]=>
  float(30)
  ["wait"]=>
  float(10)%A
}
