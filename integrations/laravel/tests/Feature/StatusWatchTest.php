<?php

namespace DistLock\Laravel\Tests\Feature;

use Illuminate\Support\Facades\Artisan;
use Illuminate\Support\Facades\Cache;

/** php artisan distlock:status NAME --watch: frames, the screen cleared between them, SIGINT, bad options. */
class StatusWatchTest extends AppTestCase
{
    private const HEADER = '/^Every 0\.2s: distlock:status %s    \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/m';

    public function testCountTwoPrintsTwoFramesOfTheLiveStatus(): void
    {
        $lock = Cache::lock('watched', 20);
        $this->assertTrue($lock->get());
        $t = microtime(true);
        $out = $this->artisanOk(['distlock:status', 'watched', '--store=distlock', '--watch', '--interval=0.2', '--count=2']);
        $this->assertGreaterThanOrEqual(0.2, microtime(true) - $t, 'one interval between the two frames');
        $this->assertSame(2, preg_match_all(sprintf(self::HEADER, 'watched'), $out), $out);
        $this->assertSame(2, preg_match_all('/^watched: held, (19|20)\.\d{3} s left, 0 waiter\(s\); mutex, 1 holder, owner [0-9a-f]{4}…$/m', $out), $out);
        $this->assertStringNotContainsString("\033[2J", $out, 'not a terminal: frames are separated by a blank line, not cleared');
        $this->assertStringNotContainsString($lock->owner(), $out);
        $this->assertTrue($lock->release());

        $out = $this->artisanOk(['distlock:status', 'watched', '--store=distlock', '--watch', '--interval=0.2', '--count=1']);
        $this->assertSame(1, preg_match_all(sprintf(self::HEADER, 'watched'), $out));
        $this->assertStringEndsWith('watched: free, 0 waiter(s)', $out);
    }

    public function testWithAnsiTheScreenIsClearedBetweenFrames(): void
    {
        $out = $this->artisanOk(['distlock:status', 'w', '--watch', '--interval=0.2', '--count=3', '--ansi']);
        $this->assertSame(2, substr_count($out, "\033[H\033[2J"), 'cleared before frames 2 and 3');
        $frames = explode("\033[H\033[2J", $out);
        $this->assertCount(3, $frames);
        foreach ($frames as $f) {
            $this->assertStringContainsString('w: free, 0 waiter(s)', $f);
        }
    }

    public function testAWaiterIsCountedInTheFrames(): void
    {
        $lock = Cache::lock('queue', 20);
        $this->assertTrue($lock->get());
        $waiter = $this->startArtisan(['dltest:block', 'queue', '8']);
        $out = '';
        for ($i = 0; $i < 40 && !str_contains($out, '1 waiter'); $i++) {
            usleep(100000);
            $out = $this->artisanOk(['distlock:status', 'queue', '--watch', '--interval=0.2', '--count=1']);
        }
        $this->assertMatchesRegularExpression('/^queue: held, \d+\.\d{3} s left, 1 waiter\(s\); mutex, 1 holder/m', $out);
        $this->assertTrue($lock->release());
        [, $wout] = $this->finish($waiter);
        $this->assertSame('got', $wout, 'the waiter got it once released');
    }

    public function testSigintEndsTheWatchAfterTheFrame(): void
    {
        $p = $this->startArtisan(['distlock:status', 'sig', '--watch', '--interval=0.2']);
        [$proc, $pipes] = $p;
        stream_set_blocking($pipes[1], false);
        $out = '';
        for ($i = 0; $i < 100 && substr_count($out, 'sig: free') < 2; $i++) {
            usleep(100000);
            $out .= (string) stream_get_contents($pipes[1]);
        }
        $this->assertGreaterThanOrEqual(2, substr_count($out, 'sig: free'), 'it keeps drawing frames: ' . $out);
        $this->assertTrue(proc_terminate($proc, SIGINT));
        $t = microtime(true);
        stream_set_blocking($pipes[1], true);
        [$rc, $rest] = $this->finish($p);
        $this->assertSame(0, $rc, 'SIGINT ends the watch with exit code 0');
        $this->assertLessThan(2.0, microtime(true) - $t, 'at once, not after a whole interval');
    }

    public function testBadOptionsAreConsoleErrors(): void
    {
        $this->assertSame(1, Artisan::call('distlock:status', ['name' => 'x', '--watch' => true, '--interval' => '0']));
        $this->assertStringContainsString('The --interval option must be a number of seconds above 0.', Artisan::output());
        $this->assertSame(1, Artisan::call('distlock:status', ['name' => 'x', '--watch' => true, '--interval' => 'abc']));
        $this->assertSame(1, Artisan::call('distlock:status', ['name' => 'x', '--watch' => true, '--count' => '0']));
        $this->assertStringContainsString('The --count option must be a whole number of frames, 1 or more.', Artisan::output());
        $this->assertSame(1, Artisan::call('distlock:status', ['name' => 'x', '--watch' => true, '--count' => '1', '--store' => 'array']));
        $this->assertStringContainsString('Cache store [array] does not use the distlock driver.', Artisan::output());
    }
}
