--TEST--
new DistLock(): unknown options and out-of-range values are ValueError naming $options and the option
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
$cases = [
    ['bogus', 1],
    ['TTL', 5],                       // option names are case-sensitive
    ['ttl', -1.0], ['ttl', 0], ['ttl', INF], ['ttl', -INF], ['ttl', NAN], ['ttl', 1e9 + 1], ['ttl', 1e300],
    ['wait', -0.001], ['wait', INF], ['wait', NAN], ['wait', 1e9 + 1],
    ['retry_delay', -1], ['retry_delay', INF], ['retry_delay', NAN], ['retry_delay', 61],
    ['retry_jitter', -0.5], ['retry_jitter', NAN], ['retry_jitter', 61],
    ['connect_timeout', 0], ['connect_timeout', -1], ['connect_timeout', INF], ['connect_timeout', 3601],
    ['timeout', 0], ['timeout', -0.1], ['timeout', NAN], ['timeout', 3601],
    ['database', -1], ['database', 2147483648],
    ['prefix', str_repeat('p', 257)],
    ['resources', ['account' => ['ttl' => -1]]],
    ['resources', ['account' => ['wait' => NAN]]],
    ['resources', ['account' => ['ttl' => 1, 'retry' => 2]]],
];
foreach ($cases as [$k, $v]) {
    $label = $k . '=' . (is_array($v) ? json_encode($v, JSON_PARTIAL_OUTPUT_ON_ERROR) : var_export($v, true));
    if (strlen($label) > 40) $label = substr($label, 0, 40) . '...';
    try {
        new DistLock('redis://127.0.0.1:6379', [$k => $v]);
        echo "$label: accepted\n";
    } catch (Throwable $e) {
        $m = $e->getMessage();
        printf("%s: %s%s%s\n", $label, get_class($e),
            str_contains($m, '$options') ? ' $options' : ' (no $options)',
            str_contains($m, '"' . $k . '"') || str_contains($m, "'" . $k . "'") ? ' names-option' : ' (option not named)');
    }
}
echo "--- exact message\n";
try { new DistLock('redis://127.0.0.1:6379', ['prefix' => 'x', 'bogus' => 1]); } catch (ValueError $e) { echo $e->getMessage(), "\n"; }

echo "--- limits are inclusive\n";
foreach ([['ttl', 1e9], ['ttl', 0.0001], ['wait', 0], ['wait', 1e9], ['retry_delay', 0], ['retry_delay', 60],
          ['retry_jitter', 0], ['connect_timeout', 3600], ['timeout', 0.001], ['database', 0],
          ['database', 2147483647], ['prefix', ''], ['prefix', str_repeat('p', 256)], ['ttl', 5], ['resources', []]] as [$k, $v]) {
    try {
        new DistLock('redis://127.0.0.1:6379', [$k => $v]);
        echo "$k ok\n";
    } catch (Throwable $e) {
        echo "$k: ", get_class($e), ": ", $e->getMessage(), "\n";
    }
}
?>
--EXPECT--
bogus=1: ValueError $options names-option
TTL=5: ValueError $options names-option
ttl=-1.0: ValueError $options names-option
ttl=0: ValueError $options names-option
ttl=INF: ValueError $options names-option
ttl=-INF: ValueError $options names-option
ttl=NAN: ValueError $options names-option
ttl=1000000001.0: ValueError $options names-option
ttl=1.0E+300: ValueError $options names-option
wait=-0.001: ValueError $options names-option
wait=INF: ValueError $options names-option
wait=NAN: ValueError $options names-option
wait=1000000001.0: ValueError $options names-option
retry_delay=-1: ValueError $options names-option
retry_delay=INF: ValueError $options names-option
retry_delay=NAN: ValueError $options names-option
retry_delay=61: ValueError $options names-option
retry_jitter=-0.5: ValueError $options names-option
retry_jitter=NAN: ValueError $options names-option
retry_jitter=61: ValueError $options names-option
connect_timeout=0: ValueError $options names-option
connect_timeout=-1: ValueError $options names-option
connect_timeout=INF: ValueError $options names-option
connect_timeout=3601: ValueError $options names-option
timeout=0: ValueError $options names-option
timeout=-0.1: ValueError $options names-option
timeout=NAN: ValueError $options names-option
timeout=3601: ValueError $options names-option
database=-1: ValueError $options names-option
database=2147483648: ValueError $options names-option
prefix='pppppppppppppppppppppppppppppppp...: ValueError $options names-option
resources={"account":{"ttl":-1}}: ValueError $options names-option
resources={"account":{"wait":0}}: ValueError $options names-option
resources={"account":{"ttl":1,"retry":2}...: ValueError $options names-option
--- exact message
DistLock::__construct(): Argument #2 ($options) contains an unknown option "bogus"
--- limits are inclusive
ttl ok
ttl ok
wait ok
wait ok
retry_delay ok
retry_delay ok
retry_jitter ok
connect_timeout ok
timeout ok
database ok
database ok
prefix ok
prefix ok
ttl ok
resources ok
