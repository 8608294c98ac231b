--TEST--
new DistLock(): malformed server URIs are ValueError naming $servers; valid forms are accepted without connecting
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
$bad = [
    '',
    'http://127.0.0.1:6379',
    'REDIS//127.0.0.1',
    '127.0.0.1:6379',
    'redis://',
    'redis://:6379',
    'redis:///0',
    'redis://127.0.0.1:0',
    'redis://127.0.0.1:70000',
    'redis://127.0.0.1:65536',
    'redis://127.0.0.1:abc',
    'redis://127.0.0.1:',
    'redis://127.0.0.1:-1',
    'redis://127.0.0.1:6379/abc',
    'redis://127.0.0.1:6379/-1',
    'redis://127.0.0.1:6379/2147483648',
    'redis://127.0.0.1:6379/1/2',
    'redis://127.0.0.1:6379?foo=bar',
    'redis://127.0.0.1:6379?timeout',
    'redis://127.0.0.1:6379?timeout=abc',
    'redis://127.0.0.1:6379?timeout=-1',
    'redis://127.0.0.1:6379?timeout=0',
    'redis://127.0.0.1:6379?timeout=inf',
    'redis://127.0.0.1:6379?connect_timeout=nan',
    'redis://127.0.0.1:6379?db=x',
    'redis://127.0.0.1:6379?&&&',
    'redis://[::1',
    'redis://[zz::1]:6379',
    "redis://127.0.0.1\0:6379",
    'redis://host name:6379',
    'redis://user:@127.0.0.1',
    'redis://u:%zz@127.0.0.1',
    'unix://',
    'unix://relative/path.sock',
    'unix:///tmp/x.sock?db=-3',
    'unix:///tmp/x.sock?foo=1',
    'unix:///' . str_repeat('a', 200) . '.sock',
    'redis://' . str_repeat('h', 5000),
];
foreach ($bad as $uri) {
    $label = json_encode(strlen($uri) > 45 ? substr($uri, 0, 45) . '...' : $uri, JSON_UNESCAPED_SLASHES);
    foreach ([$uri, [$uri]] as $arg) {
        try {
            new DistLock($arg);
            echo "$label: accepted\n";
        } catch (Throwable $e) {
            if (is_array($arg)) {
                $same = $e->getMessage() === $prev ? 'same as string' : 'different: ' . $e->getMessage();
                echo "  as list: ", get_class($e), " $same\n";
            } else {
                $prev = $e->getMessage();
                echo "$label: ", get_class($e), str_contains($prev, '$servers') ? ' $servers' : ' (no $servers)', "\n";
            }
        }
    }
}
echo "--- exact message\n";
try { new DistLock('redis://127.0.0.1:0'); } catch (ValueError $e) { echo $e->getMessage(), "\n"; }

echo "--- valid forms (lazy: no connection is attempted)\n";
$good = [
    'redis://localhost',
    'redis://127.0.0.1',
    'redis://127.0.0.1:1',
    'redis://127.0.0.1:65535/15',
    'redis://127.0.0.1:6379/',
    'redis://[::1]:6380',
    'redis://[::1]',
    'redis://redis.example.invalid:6379/2147483647',
    'redis://user:pass@127.0.0.1:6379/3?timeout=0.5&connect_timeout=1',
    'redis://:pass@127.0.0.1',
    'redis://pass@127.0.0.1',
    'redis://u%40x:p%3Ass@127.0.0.1',
    'redis://127.0.0.1?db=4',
    'unix:///tmp/phpt-does-not-exist.sock',
    'unix:///tmp/phpt-does-not-exist.sock?db=2&timeout=0.25&connect_timeout=0.5',
];
foreach ($good as $uri) {
    try {
        new DistLock($uri);
        new DistLock([$uri]);
        echo "ok $uri\n";
    } catch (Throwable $e) {
        echo "$uri: ", get_class($e), ": ", $e->getMessage(), "\n";
    }
}
echo "--- types\n";
try { new DistLock([123]); } catch (Throwable $e) { echo get_class($e), str_contains($e->getMessage(), '$servers') ? ' $servers' : ' (no $servers)', "\n"; }
try { new DistLock(new stdClass); } catch (Throwable $e) { echo get_class($e), ": ", $e->getMessage(), "\n"; }
?>
--EXPECT--
"": ValueError $servers
  as list: ValueError same as string
"http://127.0.0.1:6379": ValueError $servers
  as list: ValueError same as string
"REDIS//127.0.0.1": ValueError $servers
  as list: ValueError same as string
"127.0.0.1:6379": ValueError $servers
  as list: ValueError same as string
"redis://": ValueError $servers
  as list: ValueError same as string
"redis://:6379": ValueError $servers
  as list: ValueError same as string
"redis:///0": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:0": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:70000": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:65536": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:abc": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:-1": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:6379/abc": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:6379/-1": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:6379/2147483648": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:6379/1/2": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:6379?foo=bar": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:6379?timeout": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:6379?timeout=abc": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:6379?timeout=-1": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:6379?timeout=0": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:6379?timeout=inf": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:6379?connect_timeout=nan": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:6379?db=x": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1:6379?&&&": ValueError $servers
  as list: ValueError same as string
"redis://[::1": ValueError $servers
  as list: ValueError same as string
"redis://[zz::1]:6379": ValueError $servers
  as list: ValueError same as string
"redis://127.0.0.1\u0000:6379": ValueError $servers
  as list: ValueError same as string
"redis://host name:6379": ValueError $servers
  as list: ValueError same as string
"redis://user:@127.0.0.1": ValueError $servers
  as list: ValueError same as string
"redis://u:%zz@127.0.0.1": ValueError $servers
  as list: ValueError same as string
"unix://": ValueError $servers
  as list: ValueError same as string
"unix://relative/path.sock": ValueError $servers
  as list: ValueError same as string
"unix:///tmp/x.sock?db=-3": ValueError $servers
  as list: ValueError same as string
"unix:///tmp/x.sock?foo=1": ValueError $servers
  as list: ValueError same as string
"unix:///aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...": ValueError $servers
  as list: ValueError same as string
"redis://hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh...": ValueError $servers
  as list: ValueError same as string
--- exact message
DistLock::__construct(): Argument #1 ($servers) must be a valid server URI: port in the server URI must be an integer from 1 to 65535
--- valid forms (lazy: no connection is attempted)
ok redis://localhost
ok redis://127.0.0.1
ok redis://127.0.0.1:1
ok redis://127.0.0.1:65535/15
ok redis://127.0.0.1:6379/
ok redis://[::1]:6380
ok redis://[::1]
ok redis://redis.example.invalid:6379/2147483647
ok redis://user:pass@127.0.0.1:6379/3?timeout=0.5&connect_timeout=1
ok redis://:pass@127.0.0.1
ok redis://pass@127.0.0.1
ok redis://u%40x:p%3Ass@127.0.0.1
ok redis://127.0.0.1?db=4
ok unix:///tmp/phpt-does-not-exist.sock
ok unix:///tmp/phpt-does-not-exist.sock?db=2&timeout=0.25&connect_timeout=0.5
--- types
TypeError $servers
TypeError: DistLock::__construct(): Argument #1 ($servers) must be of type array|string, stdClass given
