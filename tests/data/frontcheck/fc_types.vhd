-- A correct VHDL design for the front-end check, with every port type its test bench drives:
-- std_ulogic clock, active-low reset rst_n (std_logic), unsigned, signed, bit, bit_vector and
-- std_ulogic_vector inputs (mask and k are parameter inputs), unsigned, signed, bit_vector, bit and
-- an ascending std_logic_vector output. The choices are written as if/elsif (no case statement:
-- GHDL 2.0.0 would drop a 'when others', GHDL bug ghdl/ghdl#2041). last has no reset: undefined ('U') until
-- the first clock edge, so its first sample is not compared.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

entity fc_types is
  port (
    clk    : in  std_ulogic;
    rst_n  : in  std_logic;
    a      : in  unsigned(7 downto 0);
    b      : in  signed(7 downto 0);
    en     : in  bit;
    op     : in  std_logic_vector(1 downto 0);
    mask   : in  bit_vector(7 downto 0);           --PARAM
    k      : in  std_ulogic_vector(7 downto 0);    --PARAM
    sum    : out unsigned(8 downto 0);
    diff   : out signed(8 downto 0);
    masked : out bit_vector(7 downto 0);
    flag   : out bit;
    last   : out std_logic_vector(0 to 3)
  );
end entity;

architecture rtl of fc_types is
  signal acc : unsigned(8 downto 0);
begin
  process (clk, rst_n)
  begin
    if rst_n = '0' then
      acc <= (others => '0');
      diff <= (others => '0');
      flag <= '0';
    elsif rising_edge(clk) then
      if en = '1' then
        if op = "00" then
          acc <= acc + a;
        elsif op = "01" then
          acc <= acc - unsigned(k);
        elsif op = "10" then
          acc <= ('0' & a) xor ('0' & unsigned(k));
        else
          acc <= (others => '0');
        end if;
      end if;
      diff <= resize(b, 9) - signed(resize(a, 9));
      if acc(7 downto 0) = unsigned(k) then flag <= '1'; else flag <= '0'; end if;
    end if;
  end process;

  process (clk)
  begin
    if rising_edge(clk) then
      last <= std_logic_vector(a(3 downto 0));
    end if;
  end process;

  sum <= acc;
  masked <= to_bitvector(std_logic_vector(a) and to_stdlogicvector(mask));
end architecture;
