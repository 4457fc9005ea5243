-- ROM of 16 words x 4 bits; the contents are an input port (named a parameter with --param contents),
-- the address a regular input; registered output.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

entity rom16x4 is
  port (
    clk      : in  std_logic;
    addr     : in  std_logic_vector(3 downto 0);
    contents : in  std_logic_vector(63 downto 0);   -- word a = bits 4a+3..4a
    data     : out std_logic_vector(3 downto 0)
  );
end entity;

architecture rtl of rom16x4 is
begin
  process (clk)
    variable a : integer range 0 to 15;
  begin
    if rising_edge(clk) then
      a := to_integer(unsigned(addr));
      data <= contents(4*a+3 downto 4*a);
    end if;
  end process;
end architecture;
