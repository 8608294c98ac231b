<?php

declare(strict_types=1);

namespace DistLock\OpenTelemetry\Tests;

use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * The automatic registration (_register.php, run by Composer's autoloader),
 * in fresh processes with the environment each case sets.
 */
final class AutoRegistrationTest extends TestCase
{
    private const OTEL_VARS = ['OTEL_PHP_DISABLED_INSTRUMENTATIONS', 'OTEL_SDK_DISABLED', 'OTEL_PHP_DISTLOCK_LOCK_NAMES',
        'OTEL_PHP_DISTLOCK_TRACES', 'OTEL_PHP_DISTLOCK_METRICS', 'OTEL_PHP_AUTOLOAD_ENABLED'];

    public function testThisProcessWasRegisteredByTheAutoloader(): void
    {
        self::assertTrue(DISTLOCK_OTEL_AUTO_AT_BOOT, "Composer's autoloader ran _register.php, which registered the observer");
    }

    public function testRegisteredByTheAutoloaderOnTheGlobalProviders(): void
    {
        $out = self::runScript('auto', []);
        self::assertTrue($out['auto_at_boot']);
        self::assertTrue($out['auto_now']);
        self::assertSame(['distlock.acquire', 'distlock.release'], array_column($out['spans'], 0));
        self::assertArrayNotHasKey('distlock.lock.name', $out['spans'][0][1]);
    }

    /** @return iterable<string, array{array<string, string>}> */
    public static function disabling(): iterable
    {
        yield 'named' => [['OTEL_PHP_DISABLED_INSTRUMENTATIONS' => 'distlock']];
        yield 'in a list' => [['OTEL_PHP_DISABLED_INSTRUMENTATIONS' => 'pdo, distlock,psr18']];
        yield 'all' => [['OTEL_PHP_DISABLED_INSTRUMENTATIONS' => 'all']];
        yield 'SDK disabled' => [['OTEL_SDK_DISABLED' => 'true']];
    }

    /** @param array<string, string> $env */
    #[DataProvider('disabling')]
    public function testDisabledByTheEnvironment(array $env): void
    {
        $out = self::runScript('auto', $env);
        self::assertFalse($out['auto_at_boot']);
        self::assertSame([], $out['spans']);
    }

    public function testAnotherInstrumentationDisabledLeavesThisOne(): void
    {
        $out = self::runScript('auto', ['OTEL_PHP_DISABLED_INSTRUMENTATIONS' => 'pdo,distlock-other']);
        self::assertTrue($out['auto_at_boot']);
        self::assertCount(2, $out['spans']);
    }

    public function testLockNamesFromTheEnvironment(): void
    {
        $out = self::runScript('auto', ['OTEL_PHP_DISTLOCK_LOCK_NAMES' => 'spans']);
        self::assertStringStartsWith('auto:', $out['spans'][0][1]['distlock.lock.name']);
    }

    /** A hand registration takes over from the automatic one: each operation is recorded once. */
    public function testHandRegistrationTakesOver(): void
    {
        $out = self::runScript('hand', []);
        self::assertTrue($out['auto_at_boot']);
        self::assertFalse($out['auto_now']);
        self::assertSame(['distlock.acquire', 'distlock.release'], array_column($out['spans'], 0));
    }

    /**
     * @param array<string, string> $env
     * @return array<string, mixed>
     */
    private static function runScript(string $mode, array $env): array
    {
        $base = getenv();
        foreach (self::OTEL_VARS as $var) {
            unset($base[$var]);
        }
        $cmd = [PHP_BINARY, '-d', 'extension=' . (getenv('DISTLOCK_SO') ?: 'distlock'), __DIR__ . '/auto-script.php',
            (string) getenv('DISTLOCK_TEST_REDIS'), $mode];
        $proc = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env + $base);
        self::assertIsResource($proc);
        $stdout = stream_get_contents($pipes[1]);
        $stderr = stream_get_contents($pipes[2]);
        $rc = proc_close($proc);
        self::assertSame(0, $rc, "auto-script.php exited with $rc: $stderr $stdout");
        self::assertSame('', $stderr, 'the process printed nothing on stderr');
        $out = json_decode((string) $stdout, true);
        self::assertIsArray($out, "auto-script.php printed: $stdout");

        return $out;
    }
}
