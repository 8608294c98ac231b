--TEST--
new DistLock(): options of the wrong type are TypeError naming $options and the option
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
$cases = [
    ['ttl', []], ['ttl', 'abc'], ['ttl', new stdClass],
    ['wait', []], ['wait', 'soon'],
    ['retry_delay', []], ['retry_jitter', 'x'],
    ['connect_timeout', []], ['timeout', 'fast'],
    ['prefix', []], ['prefix', new stdClass],
    ['username', []], ['password', []],
    ['database', 'x'], ['database', []],
    ['resources', 'account'], ['resources', ['account' => 4]],
    ['resources', ['account' => ['ttl' => 'long']]],
];
foreach ($cases as [$k, $v]) {
    $label = $k . '=' . get_debug_type($v);
    try {
        new DistLock('redis://127.0.0.1:6379', [$k => $v, 'password' => $k === 'password' ? $v : 'pw']);
        echo "$label: accepted\n";
    } catch (Throwable $e) {
        $m = $e->getMessage();
        printf("%s: %s%s%s\n", $label, get_class($e),
            str_contains($m, '$options') ? ' $options' : ' (no $options)',
            str_contains($m, '"' . $k) ? ' names-option' : ' (option not named)');
    }
}
echo "--- ints are fine where floats are expected\n";
$d = new DistLock('redis://127.0.0.1:6379', ['ttl' => 5, 'wait' => 1, 'retry_delay' => 0, 'retry_jitter' => 0,
    'connect_timeout' => 2, 'timeout' => 2, 'resources' => ['account' => ['ttl' => 4, 'wait' => 2]]]);
var_dump($d);
echo "--- the options argument itself\n";
try { new DistLock('redis://127.0.0.1:6379', 'ttl=5'); } catch (TypeError $e) { echo get_class($e), ": ", $e->getMessage(), "\n"; }
try { new DistLock('redis://127.0.0.1:6379', [5]); } catch (Throwable $e) { echo get_class($e), (str_contains($e->getMessage(), '$options') ? ' $options' : ''), "\n"; }
?>
--EXPECTF--
ttl=array: TypeError $options names-option
ttl=string: TypeError $options names-option
ttl=stdClass: TypeError $options names-option
wait=array: TypeError $options names-option
wait=string: TypeError $options names-option
retry_delay=array: TypeError $options names-option
retry_jitter=string: TypeError $options names-option
connect_timeout=array: TypeError $options names-option
timeout=string: TypeError $options names-option
prefix=array: TypeError $options names-option
prefix=stdClass: TypeError $options names-option
username=array: TypeError $options names-option
password=array: TypeError $options names-option
database=string: TypeError $options names-option
database=array: TypeError $options names-option
resources=string: TypeError $options names-option
resources=array: TypeError $options names-option
resources=array: TypeError $options names-option
--- ints are fine where floats are expected
object(DistLock)#%d (%d) {
  ["server"]=>
  string(%d) "redis://127.0.0.1:6379%S"
  ["prefix"]=>
  string(5) "lock:"
  ["ttl"]=>
  float(5)
  ["wait"]=>
  float(1)%A
}
--- the options argument itself
TypeError: DistLock::__construct(): Argument #2 ($options) must be of type array, string given
ValueError $options
