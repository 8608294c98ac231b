<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests;

use DistLock\Symfony\DistLockStore;
use DistLock\Symfony\Tests\Support\MemoryLogger;
use DistLock\Symfony\Tests\Support\Redis;
use PHPUnit\Framework\TestCase;
use Symfony\Component\Config\FileLocator;
use Symfony\Component\DependencyInjection\ContainerBuilder;
use Symfony\Component\DependencyInjection\Loader\YamlFileLoader;
use Symfony\Component\Lock\LockFactory;

/**
 * The services.yaml of README.md, loaded as written by symfony/dependency-injection
 * (needs symfony/dependency-injection, config and yaml: run in the Composer project).
 */
final class ServicesYamlTest extends TestCase
{
    public function testTheReadmeServiceDefinitionBuildsAWorkingLockFactory(): void
    {
        $readme = (string) file_get_contents(__DIR__ . '/../README.md');
        $this->assertSame(1, preg_match('/`config\/services\.yaml`\s*```yaml\n(.*?)```/s', $readme, $m), 'README has the services.yaml block');
        $dir = sys_get_temp_dir() . '/distlock-sf-services-' . getmypid();
        @mkdir($dir);
        file_put_contents("$dir/services.yaml", $m[1]);

        putenv('DISTLOCK_URL=' . Redis::uri());
        try {
            $container = new ContainerBuilder();
            (new YamlFileLoader($container, new FileLocator($dir)))->load('services.yaml');
            // An application's logger: the README's setLogger call hands it to the store.
            $container->register('logger', MemoryLogger::class)->setPublic(true);
            $container->getDefinition(LockFactory::class)->setPublic(true);
            $container->getDefinition(DistLockStore::class)->setPublic(true);
            $container->compile(true);
        } finally {
            putenv('DISTLOCK_URL');
            @unlink("$dir/services.yaml");
            @rmdir($dir);
        }

        $this->assertInstanceOf(DistLockStore::class, $container->get(DistLockStore::class));
        $factory = $container->get(LockFactory::class);
        $resource = 'sf:services:' . bin2hex(random_bytes(6));
        $lock = $factory->createLock($resource, 10.0);
        $this->assertTrue($lock->acquire(true));
        // The README's prefix '': the key is the resource, as with RedisStore.
        $this->assertSame(1, Redis::raw()->exists($resource));
        $this->assertFalse($factory->createLock($resource)->acquire());
        $this->assertStringContainsString('Conflict on the "' . $resource . '" lock', $container->get('logger')->dump());
        $lock->release();
        $this->assertSame(0, Redis::raw()->exists($resource));
    }
}
