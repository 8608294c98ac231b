<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests\Profiler;

use PHPUnit\Framework\TestCase;

/**
 * The Web Profiler's "Locks" panel in a real browser: the test application
 * (tests/ProfilerApp, a MicroKernelTrait kernel with FrameworkBundle,
 * TwigBundle, WebProfilerBundle and DistLockBundle) served by `php -S` with
 * the extension; its /locks page takes locks of every kind and waits for one
 * that a second process holds for 1 s; headless Chromium loads the profile's
 * /_profiler/<token>?panel=distlock (the token from the X-Debug-Token header)
 * and the app page with its toolbar, and the test reads the rendered DOM
 * (--dump-dom). Screenshots and DOM dumps are kept in DISTLOCK_PROFILER_OUT.
 *
 * Environment: DISTLOCK_TEST_REDIS, DISTLOCK_SO, DISTLOCK_SF_AUTOLOAD (a Composer
 * autoloader with symfony/framework-bundle, twig-bundle, web-profiler-bundle and
 * lock), CHROMIUM (default: chromium), DISTLOCK_PROFILER_OUT (default: a temp dir).
 * Needs the extension's observer (DistLock::addObserver()).
 */
final class ProfilerPanelTest extends TestCase
{
    /** @var array<string, array{process: resource, port: int, log: string}> the 'dev' and 'prod' servers */
    private static array $servers = [];

    private static string $out;

    private static string $var;

    /** Chromium's profile folder (removed at the end). */
    private static string $browserProfile;

    /** X-Debug-Token of the /locks request of testTheRequestTakesAndWaitsForItsLocks(). */
    private static ?string $token = null;

    public static function setUpBeforeClass(): void
    {
        self::$out = getenv('DISTLOCK_PROFILER_OUT') ?: sys_get_temp_dir() . '/distlock-profiler-' . getmypid();
        @mkdir(self::$out, 0777, true);
        self::$var = self::$out . '/app-var';
        self::$browserProfile = sys_get_temp_dir() . '/distlock-chromium-' . getmypid();
        foreach (['dev', 'prod'] as $env) {
            self::$servers[$env] = self::serve($env);
        }
    }

    public static function tearDownAfterClass(): void
    {
        foreach (self::$servers as $s) {
            proc_terminate($s['process']);
            proc_close($s['process']);
        }
        self::$servers = [];
        if (is_dir(self::$browserProfile)) {
            exec('rm -rf ' . escapeshellarg(self::$browserProfile));
        }
    }

    /** Starts `php -S 127.0.0.1:PORT` on the test application in $env, and waits until it accepts. */
    private static function serve(string $env): array
    {
        $app = \dirname(__DIR__) . '/ProfilerApp';
        $log = self::$out . "/php-server-$env.log";
        for ($try = 0; $try < 5; $try++) {
            $port = self::freePort();
            $cmd = [PHP_BINARY, '-d', 'extension=' . self::env('DISTLOCK_SO'), '-S', "127.0.0.1:$port", '-t', "$app/public", "$app/public/index.php"];
            $envVars = getenv() + [];
            $envVars['APP_ENV'] = $env;
            $envVars['DISTLOCK_PROFILER_VAR'] = self::$var;
            $process = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'a'], 2 => ['file', $log, 'a']], $pipes, $app, $envVars);
            self::assertIsResource($process, 'php -S starts');
            $deadline = microtime(true) + 15;
            while (microtime(true) < $deadline) {
                if (!proc_get_status($process)['running']) {
                    break;
                }
                $s = @stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 0.5);
                if ($s) {
                    fclose($s);

                    return ['process' => $process, 'port' => $port, 'log' => $log];
                }
                usleep(100000);
            }
            proc_terminate($process);
            proc_close($process);
        }
        self::fail("php -S did not start (log: $log): " . @file_get_contents($log));
    }

    private static function freePort(): int
    {
        $s = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
        $name = stream_socket_get_name($s, false);
        fclose($s);

        return (int) substr($name, strrpos($name, ':') + 1);
    }

    private static function env(string $name): string
    {
        $v = getenv($name);
        if ($v === false || $v === '') {
            throw new \RuntimeException("$name is not set");
        }

        return $v;
    }

    private static function url(string $env, string $path): string
    {
        return 'http://127.0.0.1:' . self::$servers[$env]['port'] . $path;
    }

    /**
     * GET $url with PHP's HTTP client (headers included).
     *
     * @return array{int, array<string, string>, string} status, headers (lower-case names), body
     */
    private static function get(string $url): array
    {
        $body = @file_get_contents($url, false, stream_context_create(['http' => ['timeout' => 60, 'ignore_errors' => true]]));
        self::assertNotFalse($body, "GET $url");
        $status = 0;
        $headers = [];
        foreach ($http_response_header as $h) {
            if (preg_match('#^HTTP/\S+ (\d+)#', $h, $m)) {
                $status = (int) $m[1];
            } elseif (str_contains($h, ':')) {
                [$k, $v] = explode(':', $h, 2);
                $headers[strtolower(trim($k))] = trim($v);
            }
        }

        return [$status, $headers, $body];
    }

    /**
     * Runs headless Chromium on $url with $flags (e.g. --dump-dom, --screenshot=FILE);
     * returns its standard output (the DOM for --dump-dom). Fails after 120 s.
     */
    private static function chromium(string $url, array $flags): string
    {
        $profile = self::$browserProfile;
        $cmd = array_merge([getenv('CHROMIUM') ?: 'chromium', '--headless', '--no-sandbox', '--disable-gpu',
            '--disable-dev-shm-usage', '--no-first-run', '--hide-scrollbars', "--user-data-dir=$profile",
            '--window-size=1400,1300', '--virtual-time-budget=5000'], $flags, [$url]);
        $err = self::$out . '/chromium.log';
        $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['file', $err, 'a']], $pipes);
        self::assertIsResource($p, 'chromium starts');
        stream_set_blocking($pipes[1], false);
        $stdout = '';
        $deadline = microtime(true) + 120;
        while (true) {
            $chunk = stream_get_contents($pipes[1]);
            $stdout .= (string) $chunk;
            $status = proc_get_status($p);
            if (!$status['running']) {
                $stdout .= (string) stream_get_contents($pipes[1]);
                break;
            }
            if (microtime(true) > $deadline) {
                proc_terminate($p, 9);
                self::fail("chromium timed out on $url");
            }
            usleep(50000);
        }
        fclose($pipes[1]);
        proc_close($p);
        self::assertSame(0, $status['exitcode'], "chromium exit code on $url (log: $err)");

        return $stdout;
    }

    /** The rendered DOM of $url, kept as $name.html, as an XPath. */
    private static function dom(string $url, string $name): \DOMXPath
    {
        $html = self::chromium($url, ['--dump-dom']);
        file_put_contents(self::$out . "/$name.html", $html);
        self::assertStringContainsString('</html>', $html, "a whole page from $url");
        $doc = new \DOMDocument();
        $prev = libxml_use_internal_errors(true);
        $doc->loadHTML('<?xml encoding="UTF-8">' . $html);
        libxml_clear_errors();
        libxml_use_internal_errors($prev);

        return new \DOMXPath($doc);
    }

    private static function text(\DOMXPath $x, string $query): string
    {
        $nodes = $x->query($query);
        self::assertGreaterThan(0, $nodes->length, "the page has $query");

        return trim(preg_replace('/\s+/', ' ', $nodes->item(0)->textContent));
    }

    public function testTheRequestTakesAndWaitsForItsLocks(): void
    {
        [$status, $headers, $body] = self::get(self::url('dev', '/locks'));
        $this->assertSame(200, $status, $body);
        $this->assertArrayHasKey('x-debug-token', $headers, 'the profiler profiled the request');
        $this->assertMatchesRegularExpression('/^[0-9a-f]{6}$/', $headers['x-debug-token']);
        self::$token = $headers['x-debug-token'];
        $this->assertMatchesRegularExpression('/data-conflicted="yes"/', $body, 'the try on the held lock conflicted');
        $this->assertSame(1, preg_match('/data-waited-ms="([0-9.]+)"/', $body, $m));
        // The other process holds report:42 for 1 s: the blocking acquire waited most of it.
        $this->assertGreaterThan(500.0, (float) $m[1]);
        // The store got the application's logger (FrameworkBundle autoconfigures LoggerAwareInterface):
        // the conflict is in the server's log (Symfony's default logger writes to stderr).
        $this->assertStringContainsString('[info] Conflict on the "report:42" lock: held by another key.', (string) file_get_contents(self::$servers['dev']['log']));
    }

    /** @depends testTheRequestTakesAndWaitsForItsLocks */
    #[\PHPUnit\Framework\Attributes\Depends('testTheRequestTakesAndWaitsForItsLocks')]
    public function testThePanelListsTheRequestsLockOperations(): void
    {
        $url = self::url('dev', '/_profiler/' . self::$token . '?panel=distlock');
        $x = self::dom($url, 'profiler-panel');

        // The menu entry, selected, with the operation count.
        $this->assertStringStartsWith('Locks', self::text($x, '//*[@id="menu-profiler"]//li[contains(@class, "selected")]//span[contains(@class, "label")]'));

        $rows = [];
        foreach ($x->query('//table[@id="distlock-operations"]/tbody/tr') as $tr) {
            $cells = [];
            foreach ($x->query('./td', $tr) as $td) {
                $cells[] = trim(preg_replace('/\s+/', ' ', $td->textContent));
            }
            $rows[] = [
                'operation' => $tr->getAttribute('data-operation'),
                'kind' => $tr->getAttribute('data-kind'),
                'name' => $tr->getAttribute('data-name'),
                'outcome' => $tr->getAttribute('data-outcome'),
                'wait_ns' => (int) $tr->getAttribute('data-wait-ns'),
                'held_ns' => $tr->getAttribute('data-held-ns'),
                'fencing' => $tr->getAttribute('data-fencing-token'),
                'implicit' => $tr->getAttribute('data-implicit'),
                'cells' => $cells,
            ];
        }
        $summary = implode("\n", array_map(static fn (array $r) => implode(' | ', $r['cells']), $rows));
        $this->assertGreaterThanOrEqual(17, \count($rows), "rows:\n$summary");

        // What the user reads in the cells agrees with the row's data.
        foreach ($rows as $i => $r) {
            $this->assertSame((string) ($i + 1), $r['cells'][0]);
            $this->assertSame($r['operation'], $r['cells'][2]);
            $this->assertStringStartsWith($r['kind'], $r['cells'][3]);
            $this->assertSame($r['name'], $r['cells'][4]);
            $this->assertSame($r['outcome'], $r['cells'][5]);
            $this->assertSame($r['implicit'], $r['cells'][10]);
        }

        // The request's story, in order (symfony's Lock also refreshes after each acquire).
        $expected = [
            ['acquire', 'exclusive', 'invoice:42', 'acquired'],
            ['release', 'exclusive', 'invoice:42', 'released'],
            ['acquire', 'exclusive', 'report:42', 'conflict'],
            ['acquire', 'exclusive', 'report:42', 'acquired'],
            ['release', 'exclusive', 'report:42', 'released'],
            ['acquire', 'shared', 'catalog', 'acquired'],
            ['release', 'shared', 'catalog', 'released'],
            ['acquire', 'mutex', 'orders:7', 'acquired'],
            ['release', 'mutex', 'orders:7', 'released'],
            ['acquire', 'mutex', 'session:9', 'acquired'],
            ['release', 'mutex', 'session:9', 'released'],
            ['acquire', 'mutex', 'cache:rebuild', 'acquired'],
            ['release', 'mutex', 'cache:rebuild', 'released'],
            ['acquire', 'permits', 'pdf-render', 'acquired'],
            ['release', 'permits', 'pdf-render', 'released'],
            ['acquire', 'mutex', 'export:3', 'acquired'],
            ['release', 'mutex', 'export:3', 'lost'],
        ];
        $found = [];
        $at = 0;
        foreach ($expected as $want) {
            for (; $at < \count($rows); $at++) {
                $r = $rows[$at];
                if ([$r['operation'], $r['kind'], $r['name'], $r['outcome']] === $want) {
                    $found[implode(' ', $want)] = $r;
                    $at++;
                    continue 2;
                }
            }
            $this->fail('no row "' . implode(' ', $want) . "\" in order; rows:\n$summary");
        }

        // The wait: report:42 was held 1 s by the other process.
        $waited = $found['acquire exclusive report:42 acquired'];
        $this->assertGreaterThan(500_000_000, $waited['wait_ns'], $summary);
        $this->assertGreaterThan(500.0, (float) $waited['cells'][6], 'the Wait cell shows the wait in ms');
        $this->assertSame(0, $found['acquire exclusive report:42 conflict']['wait_ns'], 'a try does not wait');
        $this->assertSame('-', $found['acquire exclusive invoice:42 acquired']['cells'][6]);
        // Holds: a release says how long the lease was held.
        $this->assertGreaterThan(0, (int) $found['release exclusive invoice:42 released']['held_ns']);
        // A release that found its lease gone: the extension may give the time since the grant (0.25 s) or none.
        $lostHeld = $found['release mutex export:3 lost']['held_ns'];
        if ($lostHeld !== '') {
            $this->assertGreaterThanOrEqual(200_000_000, (int) $lostHeld, 'export:3 was held 0.25 s');
        } else {
            $this->assertSame('-', $found['release mutex export:3 lost']['cells'][8]);
        }
        $this->assertSame('-', $found['acquire exclusive invoice:42 acquired']['cells'][8]);
        // Fencing: on for the direct client only.
        $this->assertMatchesRegularExpression('/^[1-9][0-9]*$/', $found['acquire mutex orders:7 acquired']['fencing']);
        $this->assertSame($found['acquire mutex orders:7 acquired']['fencing'], $found['acquire mutex orders:7 acquired']['cells'][9]);
        $this->assertSame('', $found['acquire exclusive invoice:42 acquired']['fencing']);
        // Implicit releases: scope end and synchronized(); the explicit ones are not.
        $this->assertSame('yes', $found['release mutex session:9 released']['implicit']);
        $this->assertSame('yes', $found['release mutex cache:rebuild released']['implicit']);
        $this->assertSame('no', $found['release mutex orders:7 released']['implicit']);
        $this->assertSame('no', $found['release exclusive report:42 released']['implicit']);

        // Totals, as shown, agree with the rows.
        $count = static fn (string $outcome) => \count(array_filter($rows, static fn (array $r) => $r['outcome'] === $outcome));
        $this->assertSame((string) \count($rows), self::text($x, '//*[@id="distlock-total-count"]'));
        $this->assertSame((string) $count('acquired'), self::text($x, '//*[@id="distlock-total-acquired"]'));
        $this->assertSame('1', self::text($x, '//*[@id="distlock-total-conflicts"]'));
        $this->assertSame('0', self::text($x, '//*[@id="distlock-total-timeouts"]'));
        $this->assertSame('1', self::text($x, '//*[@id="distlock-total-lost"]'));
        $totalWaitNs = array_sum(array_column($rows, 'wait_ns'));
        $this->assertEqualsWithDelta($totalWaitNs / 1e6, (float) self::text($x, '//*[@id="distlock-total-wait"]'), 0.01);
        $this->assertGreaterThan(500.0, (float) self::text($x, '//*[@id="distlock-total-wait"]'));
        $this->assertStringContainsString('ms', self::text($x, '//div[@id="distlock-totals"]'));

        // A picture of it, kept with the test output.
        $png = self::$out . '/profiler-panel.png';
        @unlink($png);
        self::chromium($url, ["--screenshot=$png"]);
        $this->assertFileExists($png);
        $this->assertSame("\x89PNG", substr((string) file_get_contents($png, false, null, 0, 4), 0, 4));
        $size = getimagesize($png);
        $this->assertSame([1400, 1300], [$size[0], $size[1]]);
    }

    /** @depends testTheRequestTakesAndWaitsForItsLocks */
    #[\PHPUnit\Framework\Attributes\Depends('testTheRequestTakesAndWaitsForItsLocks')]
    public function testTheToolbarOnTheApplicationsPageShowsTheTotals(): void
    {
        // The browser loads the page itself (a new request); the toolbar arrives by JavaScript.
        $url = self::url('dev', '/locks');
        $x = self::dom($url, 'app-page-with-toolbar');
        $count = (int) self::text($x, '//*[@id="distlock-toolbar-count"]');
        $wait = (float) self::text($x, '//*[@id="distlock-toolbar-wait"]');
        $this->assertGreaterThanOrEqual(17, $count);
        $this->assertGreaterThan(500.0, $wait, 'the toolbar shows the wait for report:42');
        // The item links to this request's panel, and it shows the same totals.
        $href = $x->query('//*[@id="distlock-toolbar-count"]/ancestor::a[1]/@href')->item(0)?->nodeValue;
        $this->assertNotNull($href);
        $this->assertMatchesRegularExpression('#/_profiler/[0-9a-f]{6}\?panel=distlock$#', $href);
        $this->assertNotSame(self::$token, substr($href, \strlen(self::url('dev', '/_profiler/')), 6), 'a profile of its own');
        // The lost lease of export:3 colours the item red.
        $this->assertStringContainsString('sf-toolbar-status-red', $x->query('//*[@id="distlock-toolbar-count"]/ancestor::div[contains(@class, "sf-toolbar-block")][1]/@class')->item(0)?->nodeValue ?? '');

        $panel = self::dom($href, 'profiler-panel-of-the-browsers-request');
        $this->assertSame((string) $count, self::text($panel, '//*[@id="distlock-total-count"]'));
        $this->assertSame(\sprintf('%0.2f', $wait), self::text($panel, '//*[@id="distlock-total-wait"]'));

        $png = self::$out . '/profiler-toolbar.png';
        @unlink($png);
        self::chromium($url, ["--screenshot=$png"]);
        $this->assertFileExists($png);
    }

    public function testTheBundleRegistersNothingWithoutTheProfiler(): void
    {
        [$status, , $body] = self::get(self::url('dev', '/observers'));
        $this->assertSame(200, $status, $body);
        $this->assertSame(['collector_loaded' => true, 'observer_api' => true], json_decode($body, true), 'dev: the profiler loads the collector');

        [$status, $headers, $body] = self::get(self::url('prod', '/observers'));
        $this->assertSame(200, $status, $body);
        $this->assertSame(['collector_loaded' => false, 'observer_api' => true], json_decode($body, true), 'prod: no collector, so no observer');
        $this->assertArrayNotHasKey('x-debug-token', $headers);

        // The application works the same without it (the store does not need the bundle).
        [$status, $headers, $body] = self::get(self::url('prod', '/locks'));
        $this->assertSame(200, $status, $body);
        $this->assertStringContainsString('data-conflicted="yes"', $body);
        $this->assertArrayNotHasKey('x-debug-token', $headers);
        $this->assertStringNotContainsString('sf-toolbar', $body);
    }
}
