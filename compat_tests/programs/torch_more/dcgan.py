"""A DCGAN on 8x8 images: ConvTranspose2d generator and strided Conv2d discriminator with BatchNorm and LeakyReLU,
weights_init through model.apply, two Adam optimizers (betas=(0.5, 0.999)), BCELoss with real/fake labels filled
in place, and fake.detach() for the discriminator step."""

import torch
import torch.nn as nn

nz, ngf, ndf, nc = 8, 8, 8, 1


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),  # 4x4
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),  # 8x8
            nn.Tanh())

    def forward(self, x):
        return self.main(x)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),  # 4x4
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),  # 2x2
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 2, 1, 0, bias=False),
            nn.Sigmoid())

    def forward(self, x):
        return self.main(x).view(-1, 1).squeeze(1)


def main():
    torch.manual_seed(999)
    real_images = torch.tanh(torch.randn(32, 1, 8, 8) * 0.5 + torch.linspace(-1, 1, 8))
    netG, netD = Generator(), Discriminator()
    netG.apply(weights_init)
    netD.apply(weights_init)
    criterion = nn.BCELoss()
    fixed_noise = torch.randn(4, nz, 1, 1)
    real_label, fake_label = 1.0, 0.0
    optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-3, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999))
    out = []
    for _epoch in range(2):
        for real in real_images.split(8):
            b_size = real.size(0)
            netD.zero_grad()
            label = torch.full((b_size,), real_label, dtype=torch.float)
            errD_real = criterion(netD(real), label)
            errD_real.backward()
            D_x = netD(real).mean().item()
            noise = torch.randn(b_size, nz, 1, 1)
            fake = netG(noise)
            label.fill_(fake_label)
            output = netD(fake.detach())
            errD_fake = criterion(output, label)
            errD_fake.backward()
            optimizerD.step()
            netG.zero_grad()
            label.fill_(real_label)
            output = netD(fake)
            errG = criterion(output, label)
            errG.backward()
            optimizerG.step()
            out += [(errD_real + errD_fake).item(), errG.item(), D_x]
    with torch.no_grad():
        netG.eval()
        out.append(netG(fixed_noise).mean().item())
    return out


if __name__ == "__main__":
    print(main())
